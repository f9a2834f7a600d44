const sync = await import("kuzu-wasm/nodejs/sync");
console.log(typeof sync.default?.Database, typeof sync.Database);
