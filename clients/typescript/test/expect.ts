/**
 * Assertions the server test files share.
 */

import assert from 'node:assert/strict';

import { InvalidInputError } from '@hebbs/sdk';

/** Asserts that `promise` rejects with an `InvalidInputError` naming `field`; with
 * `wireField`, that the server answered it (400 `invalid_input`) naming that wire field. */
export async function rejectsNaming(
  promise: Promise<unknown>,
  field: string,
  wireField?: string,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(
      error instanceof InvalidInputError,
      `expected an InvalidInputError, got ${String(error)}`,
    );
    assert.equal(error.field, field);
    if (wireField !== undefined) {
      assert.equal(error.wireField, wireField);
      assert.equal(error.status, 400);
      assert.equal(error.code, 'invalid_input');
    }
    assert.ok(error.message.startsWith(`invalid ${field}: `), error.message);
    return true;
  });
}
