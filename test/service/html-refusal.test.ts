import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { after, before, test } from 'node:test';
import { ServerError, ServiceClient, ServiceError, parseErrorBody } from '../../src/service/index.ts';
import { classifyFailure } from '../../src/session/failure.ts';
import { platformRequest } from '../../transports/telephony/outbound/http.ts';
import { DialError } from '../../transports/telephony/outbound/types.ts';

/**
 * A real HTTP server standing where a proxy or gateway stands: it answers every request and
 * every WebSocket upgrade with an HTML error page, as nginx or a load balancer does when the
 * service behind it is down. The page echoes the request's key, as some debugging proxies do.
 */
const KEY = 'sk-html-refusal-0123456789abcdef';
const page = (key: string) => `<!DOCTYPE html>
<html>
<head><title>502 Bad Gateway</title>
<style>body { font-family: sans-serif; }</style></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center>
<!-- upstream request carried x-api-key: ${key} -->
</body>
</html>
`;
let server: Server;
let baseUrl: string;

before(async () => {
  server = createServer((req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' }).end(page(String(req.headers['x-api-key'])));
  });
  server.on('upgrade', (req, socket: Duplex) => {
    const body = page(String(req.headers['x-api-key']));
    socket.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const client = () => new ServiceClient({ apiKey: KEY, baseUrl, timeoutMs: 20_000, maxRetries: 0 });

function assertCleanGatewayError(e: unknown, endpoint: string): true {
  assert.ok(e instanceof ServerError, String(e));
  assert.equal(e.status, 502);
  // The page's title, not its markup.
  assert.equal(e.errorMessage, '502 Bad Gateway');
  assert.ok(e.message.startsWith(`502 ${endpoint}: 502 Bad Gateway`), e.message);
  assert.doesNotMatch(e.message, /[<>]|DOCTYPE|font-family/);
  assert.match(e.hint ?? '', /HTML page/);
  // The whole page stays on the error for debugging, the key redacted there too.
  assert.match(e.body ?? '', /<center>nginx\/1\.25\.3<\/center>/);
  assert.match(e.body ?? '', /x-api-key: \[redacted\]/);
  assert.ok(!e.body!.includes(KEY) && !e.message.includes(KEY) && !e.errorMessage.includes(KEY));
  // What a call's error event says: the status and the page's title.
  assert.doesNotMatch(classifyFailure(e, 'stt').message, /[<>]/);
  return true;
}

test("a gateway's HTML page refusing a REST call is its title in the message, the page on `body`", async () => {
  await assert.rejects(client().listModels(), (e) => assertCleanGatewayError(e, 'GET /models'));
});

test("a gateway's HTML page refusing a socket's upgrade is its title in the message, the page on `body`", async () => {
  await assert.rejects(client().openListen(), (e) => assertCleanGatewayError(e, '/listen'));
});

test("a telephony platform's gateway page refusing a dial is its title in the DialError, not its markup", async () => {
  const url = `${baseUrl.replace('/api/v1', '')}/2010-04-01/Accounts/AC1/Calls.json`;
  const err = await platformRequest('twilio', url, { headers: { 'x-api-key': KEY }, body: '' }, [KEY]).catch((e) => e);
  assert.ok(err instanceof DialError, String(err));
  assert.equal(err.message, 'twilio refused the call (HTTP 502): 502 Bad Gateway');
});

test('an HTML page without a title gives its first text, entities decoded, clipped', () => {
  const noTitle = '<html><body><script>var x = "<b>";</script><h1>Service&nbsp;Unavailable &amp; more</h1><p>The server is temporarily unable to service your request.</p></body></html>';
  assert.equal(parseErrorBody(503, noTitle).errorMessage, 'Service Unavailable & more The server is temporarily unable to service your request.');
  const long = `<html><head><title>${'x'.repeat(500)}</title></head></html>`;
  const { errorMessage } = parseErrorBody(502, long);
  assert.ok(errorMessage.length <= 201 && errorMessage.endsWith('…'), errorMessage);
  assert.equal(parseErrorBody(502, '<html><body>   </body></html>').errorMessage, 'HTTP 502');
  // A fragment, as some proxies answer, is a page too.
  assert.equal(parseErrorBody(503, '<h1>Service Unavailable</h1>\n<p>No server is available to handle this request.</p>').errorMessage, 'Service Unavailable No server is available to handle this request.');
  assert.match(new ServiceError({ status: 503, errorMessage: 'x', body: '<center><h1>503</h1></center>' }).hint ?? '', /HTML page/);
  // Text that is not a page keeps its words, markup-looking or not.
  assert.equal(parseErrorBody(500, 'a < b and c > d').errorMessage, 'a < b and c > d');
});

test('a JSON refusal keeps its envelope and has no HTML hint; `body` holds what came', () => {
  const e = new ServiceError({ status: 500, errorCode: 50001, errorMessage: 'boom', body: '{"errorCode":50001,"errorMessage":"boom"}' });
  assert.equal(e.hint, undefined);
  assert.equal(e.body, '{"errorCode":50001,"errorMessage":"boom"}');
});
