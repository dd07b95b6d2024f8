export * from './chat.ts';
export * from './errors.ts';
export * from './api.ts';
