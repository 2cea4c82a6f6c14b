import { Type } from 'typebox';

/** A bytea column (sealed keys): slonik returns a Buffer. */
export const Bytes = Type.Refine(Type.Unsafe<Buffer>({}), (v) => Buffer.isBuffer(v), () => 'must be bytea');
