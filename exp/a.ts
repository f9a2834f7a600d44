import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const sync = require("kuzu-wasm/nodejs/sync");
console.log(typeof sync.Database);
