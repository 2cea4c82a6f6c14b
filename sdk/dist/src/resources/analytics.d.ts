import type { ReadOptions, WithResponse } from '../transport.ts';
import type { OrganizationAnalytics, OrganizationAnalyticsParams } from '../types.ts';
import { Resource } from './resource.ts';
/** The organization's traffic: totals and its top hostnames (per domain: `domains.analytics`). */
export declare class Analytics extends Resource {
    /**
     * GET /v1/analytics: totals over [`from`, `to`) and a page of hostnames by `sort` (requests,
     * errors or bytes); pass `next_cursor` as `cursor` (same other parameters) for the next page.
     */
    retrieve(params?: OrganizationAnalyticsParams, options?: ReadOptions): Promise<WithResponse<OrganizationAnalytics>>;
}
