// Preloaded with `node --require` (through NODE_OPTIONS) into a child process: loading the native
// Opus binding then fails as it does on a machine where @discordjs/opus has no working build
// (its prebuilt opus.node missing, or built for another Node). Only that binding is refused.
const Module = require('node:module');

const loadNative = Module._extensions['.node'];
Module._extensions['.node'] = function (module, filename) {
  if (/[\\/]@discordjs[\\/]opus[\\/]/.test(filename)) {
    const err = new Error(`Cannot find module '${filename}' (refused by test/helpers/no-opus.cjs)`);
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  return loadNative.call(this, module, filename);
};
