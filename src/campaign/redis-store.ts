import type { Redis } from 'ioredis';
import type { CampaignMeta, CampaignStore } from './store.ts';
import type { CampaignState, Contact, ContactState } from './types.ts';

/** Records the attempt's claim and the contact's record together, or neither (the claim was taken). */
/** Adds the contact to the finished set; once all are, a running or paused campaign becomes done. */
const FINISHED = `
redis.call('SADD', KEYS[2], ARGV[1])
if redis.call('SCARD', KEYS[2]) < tonumber(ARGV[2]) then return 0 end
local state = redis.call('GET', KEYS[1])
if state == 'running' or state == 'paused' then redis.call('SET', KEYS[1], 'done') end
return 1
`;

const CLAIM = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
  return 1
end
return 0
`;

/**
 * A campaign's state in the cluster's Redis, shared by every worker: `<prefix>:campaign:<id>`
 * (settings), `…:state`, `…:contacts` (a hash of contact records by index), `…:dial:<index>:<attempt>` (the
 * claims), `…:dnc` (the campaign's do-not-call set) and `<prefix>:dnc` (the shared one).
 */
export class RedisCampaignStore implements CampaignStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'hiwar',
  ) {}

  private key(id: string, ...rest: (string | number)[]) {
    return [`${this.prefix}:campaign:${id}`, ...rest].join(':');
  }

  async create(meta: CampaignMeta, contacts: Contact[], doNotCall: Iterable<string> = []): Promise<void> {
    const { state, ...rest } = meta;
    const ok = await this.redis.set(this.key(meta.id), JSON.stringify(rest), 'NX');
    if (!ok) throw new Error(`campaign ${meta.id} exists already`);
    await this.redis.set(this.key(meta.id, 'state'), state);
    const states = contacts.map((contact, index): ContactState => ({ index, contact, status: 'pending', attempts: [], notBefore: 0 }));
    for (let i = 0; i < states.length; i += 1000) {
      const chunk = states.slice(i, i + 1000).flatMap((s) => [String(s.index), JSON.stringify(s)]);
      await this.redis.hset(this.key(meta.id, 'contacts'), ...chunk);
    }
    const dnc = [...doNotCall];
    if (dnc.length) await this.redis.sadd(this.key(meta.id, 'dnc'), ...dnc);
  }
  async meta(id: string): Promise<CampaignMeta | undefined> {
    const [raw, state] = await Promise.all([this.redis.get(this.key(id)), this.redis.get(this.key(id, 'state'))]);
    return raw ? ({ ...JSON.parse(raw), state: state ?? 'running' } as CampaignMeta) : undefined;
  }
  async setState(id: string, state: CampaignState): Promise<void> {
    if (!(await this.redis.exists(this.key(id)))) throw new Error(`no campaign ${id}`);
    await this.redis.set(this.key(id, 'state'), state);
  }
  async contact(id: string, index: number): Promise<ContactState | undefined> {
    const raw = await this.redis.hget(this.key(id, 'contacts'), String(index));
    return raw ? (JSON.parse(raw) as ContactState) : undefined;
  }
  async contacts(id: string): Promise<ContactState[]> {
    const all = await this.redis.hgetall(this.key(id, 'contacts'));
    return Object.values(all).map((v) => JSON.parse(v) as ContactState).sort((a, b) => a.index - b.index);
  }
  async claim(id: string, next: ContactState): Promise<boolean> {
    const a = next.attempts.at(-1)!;
    const r = await this.redis.eval(CLAIM, 2, this.key(id, 'dial', next.index, a.attempt), this.key(id, 'contacts'), String(a.startedAt), String(next.index), JSON.stringify(next));
    return r === 1;
  }
  async save(id: string, state: ContactState): Promise<void> {
    await this.redis.hset(this.key(id, 'contacts'), String(state.index), JSON.stringify(state));
  }
  async doNotCall(id: string, number: string): Promise<boolean> {
    const [a, b] = await Promise.all([this.redis.sismember(`${this.prefix}:dnc`, number), this.redis.sismember(this.key(id, 'dnc'), number)]);
    return a === 1 || b === 1;
  }
  async finished(id: string, index: number): Promise<boolean> {
    const m = await this.meta(id);
    if (!m) return false;
    return (await this.redis.eval(FINISHED, 2, this.key(id, 'state'), this.key(id, 'finished'), String(index), String(m.total))) === 1;
  }
  async addDoNotCall(numbers: Iterable<string>): Promise<void> {
    const list = [...numbers];
    if (list.length) await this.redis.sadd(`${this.prefix}:dnc`, ...list);
  }
}
