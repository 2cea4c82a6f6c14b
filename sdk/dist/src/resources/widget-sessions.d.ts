import type { WithResponse, WriteOptions } from '../transport.ts';
import type { WidgetSession, WidgetSessionCreateParams } from '../types.ts';
import { Resource } from './resource.ts';
/** Short-lived tokens for the `<service-widget>` in your customers' browsers. */
export declare class WidgetSessions extends Resource {
    /**
     * POST /v1/widget-sessions (scope widget:write): hand only `token` to the browser (valid
     * `expires_in` = 1800 s, bound to `allowed_origins`); the API key stays on your server.
     */
    create(params: WidgetSessionCreateParams, options: WriteOptions): Promise<WithResponse<WidgetSession>>;
}
