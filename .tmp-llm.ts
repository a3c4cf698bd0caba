import http from 'node:http';
import { OpenAiLlm } from './src/llm/openai.ts';
import { spawnFakeService } from './bench/fake-service.ts';
const fake = await spawnFakeService({ llmMs: 0 });
const messages = [{ role: 'system' as const, content: 'أنت موظف خدمة عملاء.' }, { role: 'user' as const, content: 'أريد معرفة رصيد حسابي' }];
const adapter = new OpenAiLlm({ apiKey: 'bench', baseURL: fake.llmBaseUrl, model: 'llmcost' });
let sockets = 0;
const orig = http.globalAgent.createConnection.bind(http.globalAgent);
(http.globalAgent as any).createConnection = (...a: any[]) => { sockets++; return (orig as any)(...a); };
const f = async () => { for await (const _ of adapter.stream({ messages, tools: [], signal: new AbortController().signal })); };
for (let i = 0; i < 50; i++) await f();
const res: number[] = [];
const s0 = sockets;
for (let r = 0; r < 5; r++) { const c0 = process.cpuUsage(); for (let i = 0; i < 100; i++) await f(); const c = process.cpuUsage(c0); res.push((c.user + c.system) / 100); }
console.log('CPU µs per request (best of 5 × 100):', Math.min(...res).toFixed(0), 'all', res.map((x) => x.toFixed(0)).join(' '), 'new sockets in 500 requests:', sockets - s0, 'keepAlive', (http.globalAgent as any).keepAlive);
await fake.close?.();
process.exit(0);
