import { describe, expect, it } from 'vitest';
import { databaseFromEnv } from './open.ts';

describe('databaseFromEnv', () => {
  it('is null without DATABASE_URL: the embedded database', () => {
    expect(databaseFromEnv({ KB_DATABASE_POOL: '8' })).toBeNull();
  });

  it('keeps 4 connections unless told otherwise: one server on a 2-core database', () => {
    expect(databaseFromEnv({ DATABASE_URL: 'postgres://db/kb' })).toEqual({ url: 'postgres://db/kb', poolSize: 4 });
    expect(databaseFromEnv({ DATABASE_URL: 'postgresql://db/kb', KB_DATABASE_POOL: ' 2 ' })?.poolSize).toBe(2);
  });

  it('refuses a pool outside 2–200 and a URL that is not PostgreSQL', () => {
    for (const pool of ['1', '201', '3.5', 'many'])
      expect(() => databaseFromEnv({ DATABASE_URL: 'postgres://db/kb', KB_DATABASE_POOL: pool })).toThrow(
        /KB_DATABASE_POOL/,
      );
    expect(() => databaseFromEnv({ DATABASE_URL: 'mysql://db/kb' })).toThrow(/DATABASE_URL/);
  });
});
