// Preloaded with `node --require` into a child process: the OpenTelemetry SDK then looks not
// installed, as on a machine where the user has not added it (its resolution fails as npm's would).
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@opentelemetry/sdk-trace') {
    const err = new Error(`Cannot find module '${request}' (refused by test/helpers/no-otel-sdk.cjs)`);
    err.code = 'MODULE_NOT_FOUND';
    throw err;
  }
  return resolve.call(this, request, ...rest);
};
