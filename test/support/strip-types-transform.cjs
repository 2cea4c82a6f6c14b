// Jest transform: Node's built-in TypeScript stripping ("strip" mode keeps every position, so
// stack traces point at the right lines without source maps).
const { stripTypeScriptTypes } = require('node:module');
const { createHash } = require('node:crypto');

module.exports = {
  process(source, filename) {
    return { code: stripTypeScriptTypes(source, { mode: 'strip', sourceUrl: filename }) };
  },
  getCacheKey(source, filename) {
    return createHash('sha256').update(process.version).update(filename).update(source).digest('hex');
  },
};
