import opus from '@discordjs/opus';

/** @discordjs/opus is CommonJS: its class comes off the default export. Encodes and decodes. */
export const OpusCodec = opus.OpusEncoder;
export type OpusCodec = InstanceType<typeof opus.OpusEncoder>;
