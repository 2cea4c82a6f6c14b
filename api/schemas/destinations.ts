import { Type } from 'typebox';
import { IdParams, named, Timestamp } from './common.ts';

export const Destination = named('Destination', Type.Object({
  id: Type.String({ description: 'Identifier (dst_…)' }),
  url: Type.String({ description: 'HTTPS origin of your application, e.g. https://app.example.com' }),
  host: Type.String({ description: 'The host of `url`, lowercase (punycode for IDNs)' }),
  port: Type.Integer({ enum: [443, 8443], description: 'Effective port: 443 (default) or 8443' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { description: 'An HTTPS origin of your application that customer hostnames are served from' }));

export const CreateDestinationBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https://host[:port], port 443 or 8443, no path, query, fragment or credentials' }),
}, { additionalProperties: false });

export const DestinationIdParams = IdParams('destination');

export const UpdateDestinationBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'The new origin: https://host[:port], port 443 or 8443, same rules as at creation; every domain on this destination re-routes within 2 s' }),
}, { additionalProperties: false });
