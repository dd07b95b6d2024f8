export * from './chat.ts';
export * from './errors.ts';
export * from './api.ts';
export * from './history.ts';
export * from './search.ts';
export * from './feedback.ts';
export * from './admin.ts';
export * from './context.ts';
