/**
 * `hiwar/testing`: test your own agent offline, in your own CI, with any test runner. Start the
 * embedded sandbox once, run scripted calls (caller lines, keys, barge-ins, hang-ups) against
 * the agent, and assert on the typed result: turns, what was heard, tools with their arguments,
 * metrics. See docs/testing-your-agent.md.
 */
export { runCall, TESTING_DEFAULTS, type RunCallOptions, type TestCall, type TestToolCall, type CallScript } from './run-call.ts';
export { startTestSandbox, type TestSandbox, type TestSandboxOptions, type KeyRefusal } from './sandbox.ts';
export type { TestProgress } from './progress.ts';
export { expectToolCall, expectNoToolCall, expectAgentSaid, expectHeard, expectNoErrors, expectHandoff, expectTask, expectError } from './expect.ts';
export { agentPhrases } from '../session/agent-phrases.ts';
export { scenarioFromIntents } from './phrases.ts';
export { parseScenario, loadScenario, type Scenario, type ScenarioInput } from './scenario.ts';
export { simulateCall, type SimulatedCall } from './simulate.ts';
export { SimulatedCaller, hum, type CallerStep, type CallerLine } from './simulated-caller.ts';
export { SteadyScaledClock } from './steady-clock.ts';
export { startFakeTwilio, FAKE_TWILIO_DEFAULTS, type FakeTwilio, type FakeTwilioOptions, type FakeTwilioRequest, type FakeTwilioCallback, type FakeTwilioCall, type FakePhone, type FakeCallStatus } from './fake-twilio.ts';
