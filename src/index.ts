export * from './service/index.ts';
