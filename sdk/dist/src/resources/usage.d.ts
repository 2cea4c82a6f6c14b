import type { ReadOptions, WithResponse } from '../transport.ts';
import type { Usage as UsageData } from '../types.ts';
import { Resource } from './resource.ts';
/** The plan's usage in the current period (hostnames, overage estimate, bandwidth). */
export declare class Usage extends Resource {
    /** GET /v1/usage. */
    retrieve(options?: ReadOptions): Promise<WithResponse<UsageData>>;
}
