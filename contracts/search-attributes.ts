// Custom search attributes, so the Temporal Web UI can answer "where is shop.customer.com and
// why": filter by hostname, organization or status, and see a delivery's attempt count.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const HostgateHostname = defineSearchAttributeKey('HostgateHostname', SearchAttributeType.KEYWORD);
export const HostgateOrganizationId = defineSearchAttributeKey('HostgateOrganizationId', SearchAttributeType.KEYWORD);
export const HostgateDomainStatus = defineSearchAttributeKey('HostgateDomainStatus', SearchAttributeType.KEYWORD);
export const HostgateDeliveryStatus = defineSearchAttributeKey('HostgateDeliveryStatus', SearchAttributeType.KEYWORD);
export const HostgateEndpointId = defineSearchAttributeKey('HostgateEndpointId', SearchAttributeType.KEYWORD);
export const HostgateAttempt = defineSearchAttributeKey('HostgateAttempt', SearchAttributeType.INT);
export const HostgateNextAttemptAt = defineSearchAttributeKey('HostgateNextAttemptAt', SearchAttributeType.DATETIME);
// Billing workflows (`billing/<org id>`): which plan, and whether the subscription is paid.
export const HostgateBillingPlan = defineSearchAttributeKey('HostgateBillingPlan', SearchAttributeType.KEYWORD);
export const HostgateBillingStatus = defineSearchAttributeKey('HostgateBillingStatus', SearchAttributeType.KEYWORD);

export const allSearchAttributes = [
  HostgateHostname, HostgateOrganizationId, HostgateDomainStatus, HostgateDeliveryStatus,
  HostgateEndpointId, HostgateAttempt, HostgateNextAttemptAt,
  HostgateBillingPlan, HostgateBillingStatus,
];
