import type { Logger } from '../session/logger.ts';
import { isLoopback } from '../server/tokens.ts';
import { MemoryTokenLedger, type TokenLedger } from '../server/token-ledger.ts';
import { docPath } from '../docs-path.ts';

/**
 * Where `hiwar serve` remembers spent media tokens and webhook nonces: Redis when `REDIS_URL` is
 * set (a token minted by one instance is spent for all), this process otherwise.
 */
export async function serveLedger(redisUrl: string | undefined, logger: Logger): Promise<TokenLedger & { where: string }> {
  if (!redisUrl) return Object.assign(new MemoryTokenLedger(), { where: 'this process' });
  const { connectTokenLedger } = await import('../cluster/token-ledger.ts');
  const { redisAddress } = await import('../cluster/redis.ts');
  const ledger = await connectTokenLedger(redisUrl, (err) => logger.warn({ err: err.message }, 'token ledger: Redis unreachable, media connections are refused until it is back'));
  return Object.assign(ledger, { where: `Redis ${redisAddress(redisUrl)}` });
}

/**
 * What `hiwar serve` says at start about access: one line per platform (closed for lack of a
 * secret, or open and why), the WebRTC token route, and a loud warning when `--open` is on.
 */
export function accessLines(o: { open: boolean; host: string; platforms: { line: string }[]; webrtc?: { secret: boolean }; ledgerWhere: string; audiosocket?: number; calls?: { secret: boolean; platforms: string[] }; review?: { secret: boolean }; live?: { cluster: boolean }; docs?: boolean }): string[] {
  const lines: string[] = [];
  if (o.open) {
    lines.push(
      `  !! --open: DEVELOPMENT ONLY. Routes of platforms without a secret take unsigned webhooks and media without a token${isLoopback(o.host) ? '' : `, and this server is bound to ${o.host}, beyond this machine`}: anyone who reaches it can place calls on the service key.`,
    );
  }
  lines.push(`  access (tokens spent in ${o.ledgerWhere}):`);
  for (const p of o.platforms) lines.push(`    ${p.line}`);
  if (o.audiosocket !== undefined) lines.push(`    ${'audiosocket'.padEnd(10)} TCP${o.audiosocket ? ` port ${o.audiosocket}` : ''}: peers on loopback or HIWAR_AUDIOSOCKET_ALLOW only (AudioSocket carries no token)`);
  if (o.webrtc) {
    const what = o.webrtc.secret ? 'needs Authorization: Bearer <HIWAR_WEBRTC_SECRET>' : o.open ? 'OPEN without a secret (--open, no HIWAR_WEBRTC_SECRET)' : 'CLOSED: set HIWAR_WEBRTC_SECRET';
    lines.push(`    ${'webrtc'.padEnd(10)} POST /webrtc/token ${what}`);
  }
  if (o.calls) {
    // Placing calls is never opened by --open: it spends the platform account's money and reaches people.
    const through = o.calls.platforms.length ? `through ${o.calls.platforms.join(', ')}` : `no platform credentials set (${docPath('docs/outbound.md')})`;
    lines.push(`    ${'calls'.padEnd(10)} POST /calls, GET /calls/:id ${o.calls.secret ? 'need Authorization: Bearer <HIWAR_CALLS_SECRET>' : 'CLOSED: set HIWAR_CALLS_SECRET'}; ${through}`);
    lines.push(`    ${'campaigns'.padEnd(10)} GET /campaigns/:id[/results], POST /campaigns/:id/pause|resume|cancel ${o.calls.secret ? 'need the same secret' : 'CLOSED: set HIWAR_CALLS_SECRET'}`);
    // What callers say is on it: closed without the secret, --open or not.
    if (o.live) lines.push(`    ${'live'.padEnd(10)} GET /calls/live (${o.live.cluster ? 'every instance' : 'this instance'}'s calls) ${o.calls.secret ? 'needs HIWAR_CALLS_SECRET (the page asks for it; JSON with Authorization: Bearer)' : 'CLOSED: set HIWAR_CALLS_SECRET'}`);
  }
  if (o.review) {
    // Recordings are personal data: never opened by --open either.
    lines.push(`    ${'review'.padEnd(10)} GET /calls, /calls/<id> (browsers) ${o.review.secret ? 'need HIWAR_REVIEW_SECRET (HTTP Basic password, or Bearer)' : 'CLOSED: set HIWAR_REVIEW_SECRET'}`);
  }
  // The package's own documentation: nothing of the calls or the configuration is on it.
  if (o.docs) lines.push(`    ${'docs'.padEnd(10)} GET /docs/ OPEN (--docs: the guide shipped with the package, public)`);
  return lines;
}
