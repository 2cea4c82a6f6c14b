// Our ACME account per CA directory: its URL once registered, and its key sealed (SecretBox).
import { Type } from 'typebox';
import { NoRows, row, sql, type Db } from '../pool.ts';
import { Bytes } from './bytes.ts';

const AccountRow = row(Type.Object({ account_url: Type.Union([Type.String(), Type.Null()]), private_key_enc: Bytes, key_id: Type.String() }));

export interface SealedKey { keyId: string; ciphertext: Buffer }

export function acmeAccountsRepository(db: Db) {
  const find = (directoryUrl: string) =>
    db.maybeOne(sql.type(AccountRow)`select account_url, private_key_enc, key_id from acme_accounts where directory_url = ${directoryUrl}`);
  return {
    find,

    /** The account row, inserted with `sealed` as its key if there is none (concurrent first runs converge on the first key stored). */
    async findOrInsert(directoryUrl: string, sealed: () => Promise<SealedKey>) {
      const found = await find(directoryUrl);
      if (found) return found;
      const key = await sealed();
      await db.query(sql.type(NoRows)`
        insert into acme_accounts (directory_url, private_key_enc, key_id) values (${directoryUrl}, ${sql.binary(key.ciphertext)}, ${key.keyId})
        on conflict (directory_url) do nothing`);
      return db.one(sql.type(AccountRow)`select account_url, private_key_enc, key_id from acme_accounts where directory_url = ${directoryUrl}`);
    },

    async setAccountUrl(directoryUrl: string, accountUrl: string): Promise<void> {
      await db.query(sql.type(NoRows)`update acme_accounts set account_url = ${accountUrl} where directory_url = ${directoryUrl}`);
    },

    /** The CA no longer knows our account: the next client registers again (same key, same account if the CA still has it). */
    async forgetAccountUrl(directoryUrl: string): Promise<void> {
      await db.query(sql.type(NoRows)`update acme_accounts set account_url = null where directory_url = ${directoryUrl}`);
    },
  };
}

export type AcmeAccountsRepository = ReturnType<typeof acmeAccountsRepository>;
