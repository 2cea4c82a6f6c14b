import { Type } from 'typebox';
import { named } from './common.ts';
import { PlanName } from './usage.ts';

const ReturnUrl = (what: string) => Type.String({ minLength: 1, maxLength: 2048, format: 'uri', description: `${what}; its origin must be one of the organization's allowed return origins` });

export const CheckoutSessionBody = Type.Object({
  plan: PlanName,
  success_url: Type.Optional(ReturnUrl('Where the payer returns after paying')),
  cancel_url: Type.Optional(ReturnUrl('Where the payer returns after cancelling')),
}, { additionalProperties: false });

export const PortalSessionBody = Type.Object({
  return_url: Type.Optional(ReturnUrl('Where the portal\'s "return" link leads')),
}, { additionalProperties: false });

export const PlanChangeBody = Type.Object({
  plan: PlanName,
}, { additionalProperties: false });

export const BillingSession = named('BillingSession', Type.Object({
  id: Type.String({ description: 'The payment provider\'s session id (cs_… / ps_…; cs_local_… with the built-in provider)' }),
  url: Type.String({ description: 'Send the payer\'s browser here' }),
}, { description: 'A payment provider page (checkout or customer portal) to send the payer to' }));
