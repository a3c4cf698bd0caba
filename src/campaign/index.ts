/**
 * Outbound campaigns: contacts called within a window, with retries, a do-not-call list and
 * at most one dial per (contact, attempt), in this process or by BullMQ workers on a cluster
 * (docs/campaigns.md).
 */
export type { AttemptOutcome, AttemptRecord, CallResult, NotPlaced, CampaignState, Contact, ContactState, ContactStatus, DialAttempt, Dialer } from './types.ts';
export { checkZone, isOpen, localTime, localToUtc, nextOpening, parseWindow, WindowError, type CallingWindow } from './window.ts';
export { afterOutcome, CAMPAIGN_DEFAULTS, campaignSettings, decide, inWindow, parseDuration, retryable, started, type CampaignSettings, type Decision } from './schedule.ts';
export { csvRows, normalizeNumber, parseContacts, parseDoNotCall, type BadRow, type ParsedContacts } from './contacts.ts';
export { MemoryCampaignStore, settingsOf, statusOf, type CampaignMeta, type CampaignStatus, type CampaignStore } from './store.ts';
export { RedisCampaignStore } from './redis-store.ts';
export { csvCell, csvRow, csvSink, resultOf, RESULT_COLUMNS, resultsCsv, webhookSink, type CampaignResult, type ResultSink } from './results.ts';
export { dialOf, runStep, type CampaignGate, type StepDeps, type StepOutcome } from './step.ts';
export { controlCampaign, InProcessCampaigns, newMeta, type CampaignSpec } from './in-process.ts';
export { budgetGate, CAMPAIGN_QUEUE_DEFAULTS, slotGate, CampaignQueue, CampaignWorker, jobIdOf, type CampaignQueueOptions, type CampaignWorkerDeps } from './queue.ts';
export { campaignRoutes, type CampaignRoutesOptions } from './routes.ts';
export { CALL_SLOTS_DEFAULTS, CallSlots, campaignOfDial, isDialId, SlotKeeper, type SlotTake, type SlotsRedis } from './slots.ts';
