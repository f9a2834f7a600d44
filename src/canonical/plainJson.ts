/** Plain JSON (as `JSON.parse` gives it). Property values of entities and edge evidence. */
export type PlainJson = null | boolean | number | string | PlainJson[] | { [key: string]: PlainJson };
