import { Type, type Static } from 'typebox';
import { newId } from '../ids.ts';
import { row, sql, type Db } from '../pool.ts';

export const Plan = Type.Union([Type.Literal('starter'), Type.Literal('growth'), Type.Literal('scale')]);
export const BillingStatus = Type.Union([Type.Literal('inactive'), Type.Literal('active'), Type.Literal('past_due'), Type.Literal('canceled')]);

export const OrganizationRow = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Plan,
  billing_status: BillingStatus,
  allowed_return_origins: Type.Array(Type.String()),
  created_at: Type.String(),
});
export type OrganizationRow = Static<typeof OrganizationRow>;

const Org = row(OrganizationRow);
const columns = sql.fragment`id, name, plan, billing_status, allowed_return_origins, created_at`;

export function organizationsRepository(db: Db) {
  return {
    async create(input: { name: string; allowedReturnOrigins?: string[] }): Promise<OrganizationRow> {
      return db.one(sql.type(Org)`
        insert into organizations (id, name, allowed_return_origins)
        values (${newId('organization')}, ${input.name}, ${sql.array(input.allowedReturnOrigins ?? [], 'text')})
        returning ${columns}`);
    },
    async get(id: string): Promise<OrganizationRow | null> {
      return db.maybeOne(sql.type(Org)`select ${columns} from organizations where id = ${id}`);
    },
    async list(): Promise<readonly OrganizationRow[]> {
      return db.any(sql.type(Org)`select ${columns} from organizations order by created_at, id`);
    },
  };
}
