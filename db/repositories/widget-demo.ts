// The tenant behind the development-only widget demo page (api/plugins/widget-demo.ts): one
// organization named DEMO_ORGANIZATION_NAME with one destination, created on first use.
import { Type } from 'typebox';
import { row, sql, type Db } from '../pool.ts';
import { destinationsRepository } from './destinations.ts';
import { organizationsRepository } from './organizations.ts';

export const DEMO_ORGANIZATION_NAME = 'Widget demo';
const DEMO_DESTINATION = 'https://app.widget-demo.example';
const Count = row(Type.Object({ count: Type.Integer() }));

export interface DemoTenant { organizationId: string; destinationId: string }

export function widgetDemoRepository(db: Db) {
  const orgs = organizationsRepository(db);
  const destinations = destinationsRepository(db);
  return {
    /** The demo organization and its destination, created when missing. */
    async ensureTenant(): Promise<DemoTenant> {
      const org = (await orgs.list()).find((o) => o.name === DEMO_ORGANIZATION_NAME) ?? await orgs.create({ name: DEMO_ORGANIZATION_NAME });
      const destination = await destinations.onlyOne(org.id)
        ?? await destinations.create({ organizationId: org.id, url: DEMO_DESTINATION, host: new URL(DEMO_DESTINATION).hostname, port: 443 });
      return { organizationId: org.id, destinationId: destination.id };
    },
    /** Domains connected through the demo so far. */
    async domainCount(): Promise<number> {
      return db.oneFirst(sql.type(Count)`select count(*)::int as count from domains d join organizations o on o.id = d.organization_id where o.name = ${DEMO_ORGANIZATION_NAME}`);
    },
  };
}
