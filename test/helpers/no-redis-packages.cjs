// Preloaded with `node --require` into a child process: ioredis and bullmq then look not
// installed, as in a project that has not added them (their resolution fails as npm's would).
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'ioredis' || request === 'bullmq') {
    const err = new Error(`Cannot find module '${request}' (refused by test/helpers/no-redis-packages.cjs)`);
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  return resolve.call(this, request, ...rest);
};
