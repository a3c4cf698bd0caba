import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, resolveConfig, toWsUrl } from '../../src/service/config.ts';

test('options win over the environment, and the region picks the base URL', () => {
  const env = {
    HIWAR_API_KEY: 'env-key',
    HIWAR_BASE_URL: 'https://g.example/api/v1/',
    HIWAR_UAE_BASE_URL: 'https://u.example/api/v1',
    HIWAR_REGION: 'uae',
  };
  const fromEnv = resolveConfig({}, env);
  assert.equal(fromEnv.apiKey, 'env-key');
  assert.equal(fromEnv.region, 'uae');
  assert.equal(fromEnv.baseUrl, 'https://u.example/api/v1');
  assert.equal(fromEnv.wsBaseUrl, 'wss://u.example/api/v1');
  const fromOpts = resolveConfig({ apiKey: 'opt', region: 'global' }, env);
  assert.equal(fromOpts.apiKey, 'opt');
  assert.equal(fromOpts.baseUrl, 'https://g.example/api/v1', 'trailing slash trimmed');
});

test('ws URL keeps host, port and path; plain http becomes ws', () => {
  assert.equal(toWsUrl('http://127.0.0.1:8787/api/v1'), 'ws://127.0.0.1:8787/api/v1');
  assert.equal(toWsUrl('https://h/uae/api/v1'), 'wss://h/uae/api/v1');
  assert.throws(() => toWsUrl('ftp://h/api/v1'), ConfigError);
});

test('a bad region or URL is a clear configuration error', () => {
  assert.throws(() => resolveConfig({}, { HIWAR_REGION: 'mars' }), /region must be "global" or "uae"/);
  assert.throws(() => resolveConfig({ baseUrl: 'not a url' }, {}), ConfigError);
});

test('no key in options or environment leaves apiKey undefined', () => {
  assert.equal(resolveConfig({}, {}).apiKey, undefined);
  assert.equal(resolveConfig({}, { HIWAR_API_KEY: '' }).apiKey, undefined);
});

test('default model ids: vendor naming unless told, one switch for both, each overridable', () => {
  assert.deepEqual(resolveConfig({}, {}).models, { stt: 'munsit', tts: 'faseeh-v1-preview' });
  assert.deepEqual(resolveConfig({}, { HIWAR_MODEL_IDS: 'spec' }).models, { stt: 'asr', tts: 'tts-v1-preview' });
  assert.deepEqual(resolveConfig({ modelIds: 'vendor' }, { HIWAR_MODEL_IDS: 'spec' }).models, { stt: 'munsit', tts: 'faseeh-v1-preview' });
  assert.deepEqual(resolveConfig({}, { HIWAR_MODEL_IDS: 'spec', HIWAR_TTS_MODEL: 'faseeh-mini-v1-preview' }).models, { stt: 'asr', tts: 'faseeh-mini-v1-preview' });
  assert.deepEqual(resolveConfig({ models: { stt: 'munsit-en-ar' } }, { HIWAR_STT_MODEL: 'asr' }).models.stt, 'munsit-en-ar');
  assert.throws(() => resolveConfig({}, { HIWAR_MODEL_IDS: 'cntxt' }), /model ids must be "vendor" or "spec"/);
});

test('spec and vendor names of a model are one model to the rules; unknown ids are left alone', async () => {
  const { specModelOf, sttFamily } = await import('../../src/service/models.ts');
  assert.equal(specModelOf('munsit'), 'asr');
  assert.equal(specModelOf('faseeh-mini-v1-preview'), 'tts-v1-preview');
  assert.equal(sttFamily('munsit-en-ar'), 'asr-en-ar');
  assert.equal(sttFamily(undefined), 'asr');
  assert.equal(sttFamily('munsit-v3'), undefined);
});
