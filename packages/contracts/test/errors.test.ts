import { describe, expect, it } from 'vitest';
import { errorCodeForStatus, errorStatus } from '../src/errors';

describe('the error table', () => {
  it('gives every status a code of that status, and an unknown 4xx the plain bad request', () => {
    for (const status of new Set(Object.values(errorStatus)))
      expect(errorStatus[errorCodeForStatus(status)], String(status)).toBe(status);
    expect(errorCodeForStatus(413)).toBe('PAYLOAD_TOO_LARGE');
    expect(errorCodeForStatus(416)).toBe('RANGE_NOT_SATISFIABLE');
    expect(errorCodeForStatus(400)).toBe('BAD_REQUEST');
    expect(errorCodeForStatus(418)).toBe('BAD_REQUEST');
  });
});
