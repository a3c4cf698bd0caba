import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { regionOf, requestUrl } from '../http/server.ts';
import type { Region } from '../keys.ts';
import type { SandboxState } from '../state.ts';
import { credentialsOf, legacyKey, listenKey, ttsKey } from './auth.ts';
import { legacyRefusal, refuseUpgrade, serveLegacy } from './legacy.ts';
import { serveListen } from './listen.ts';
import { serveTts } from './tts.ts';

/** Answers an upgrade that cannot be served with the service's error envelope. */
function refuse(socket: Duplex, status: number, text: string, errorCode: number, errorMessage: string): void {
  const body = JSON.stringify({ errorCode, errorMessage });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Routes WebSocket upgrades to the three sockets of the service. */
export function attachSockets(server: Server, state: SandboxState, fixedRegion?: Region): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const url = requestUrl(req.url);
    if (!url) {
      refuse(socket, 400, 'Bad Request', 40001, 'Malformed request URL');
      return;
    }
    const where = regionOf(url.pathname, fixedRegion);
    const known = ['/listen', '/websocket/text-to-speech', '/websocket/speech-to-text'];
    if (!where || !known.includes(where.path)) {
      refuse(socket, 404, 'Not Found', 40401, `Unknown path ${url.pathname}`);
      return;
    }
    if (where.path === '/listen' && state.faults.listenDown) {
      refuse(socket, 503, 'Service Unavailable', 50301, 'speech recognition is unavailable');
      return;
    }
    const creds = credentialsOf(req, url);
    if (where.path === '/websocket/speech-to-text') {
      // Refused at the handshake: real clients of this socket reconnect forever on a bare close.
      const refusal = legacyRefusal(state.keys.lookup(legacyKey(creds), where.region));
      if (refusal) return refuseUpgrade(socket, refusal);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (where.path === '/listen') serveListen(ws, url, state.keys.lookup(listenKey(creds), where.region), state);
      else if (where.path === '/websocket/text-to-speech') serveTts(ws, ttsKey(creds), where.region, state);
      else serveLegacy(ws, url, state.keys.lookup(legacyKey(creds), where.region), state, socket as Socket);
    });
  });
  return wss;
}
