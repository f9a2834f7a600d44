import singleton from "../node_modules/kuzu-wasm/nodejs/sync/kuzu.js";
import sync from "../node_modules/kuzu-wasm/nodejs/sync/index.js";
console.log(typeof singleton.checkInit, typeof sync.Database);
