// Comments that name a file or folder of this repository (`worker/main.ts`, `docs/edge.md`,
// `workflows/maintenance/`) name one that exists. A comment citing a file that was renamed or
// never written (`worker/dns-worker.ts`) sends a reader looking for nothing. Every non-test
// TypeScript source is parsed (the TypeScript compiler finds its comments, so paths inside code and
// strings are not read), and each path-looking word is resolved from the repository root, from
// the commenting file's folder or from one of its parents (`plugins/widget-auth.ts` in
// api/routes/ is api/plugins/widget-auth.ts).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * A word with a slash that ends in a known extension (`db/pool.ts`, `./x.ts`, `../y.md`), or a
 * folder ending in a slash (`metrics/`). Not part of a URL, a package specifier (`@scope/x`, `node:x`)
 * or a workflow id (`domain/<id>`); no wildcards or placeholders (`migrations/NNN.do.*.sql`).
 */
const PATH = /(?<![\w.:/@<*-])((?:\.{1,2}\/)?(?:[\w.-]+\/)+[\w.-]*\.(?:ts|js|cjs|md|sql|json|yml|cfg|lua|template|html)|(?:[\w-]+\/)+)(?![\w/<{*$-])/g;

/** Built at build time and git-ignored (`npm run build`): named in comments, absent from a checkout. */
const BUILT = /^dist\//;

/** Every comment of a TypeScript file, each once. */
function commentsOf(file: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const found: { line: number; text: string }[] = [];
  const take = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      found.push({ line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

/** The root, the file's folder and every folder between them. */
function basesOf(file: string): string[] {
  const bases = [root];
  for (let dir = path.dirname(file); dir !== '.'; dir = path.dirname(dir)) bases.push(path.join(root, dir));
  return bases;
}

/** Comment references of the non-test sources that name nothing: `file:line: path`. */
function danglingReferences(): string[] {
  const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: root, encoding: 'utf8' }).split('\n').filter((f) => f && !f.startsWith('test/'));
  const dangling: string[] = [];
  for (const file of files) {
    for (const comment of commentsOf(file, readFileSync(path.join(root, file), 'utf8'))) {
      // Example code in a comment (`import … from './hostgate/sdk/webhooks.ts'`) names the reader's files.
      const prose = comment.text.replace(/\bfrom\s+(['"]).*?\1/g, '');
      for (const match of prose.matchAll(PATH)) {
        const ref = match[1]!;
        if (BUILT.test(ref)) continue;
        if (!basesOf(file).some((base) => existsSync(path.join(base, ref)))) {
          const line = comment.line + comment.text.slice(0, comment.text.indexOf(ref)).split('\n').length - 1;
          dangling.push(`${file}:${line}: ${ref}`);
        }
      }
    }
  }
  return dangling;
}

describe('file references in comments', () => {
  it('the checker sees a path in a comment and not one in code', () => {
    const comments = commentsOf('x.ts', "// see worker/dns-worker.ts\nconst p = 'worker/none.ts'; /* and docs/edge.md */\n");
    expect(comments.map((c) => [...c.text.matchAll(PATH)].map((m) => m[1]))).toEqual([['worker/dns-worker.ts'], ['docs/edge.md']]);
    expect([...'workflow id `domain/<id>`, https://x.example/a/b.ts, @scope/pkg/x.ts, node:fs/promises, migrations/NNN.do.*.sql'.matchAll(PATH)]).toEqual([]);
    expect(basesOf('api/routes/widget.ts').some((b) => existsSync(path.join(b, 'plugins/widget-auth.ts')))).toBe(true);
    expect(basesOf('api/routes/widget.ts').some((b) => existsSync(path.join(b, 'worker/dns-worker.ts')))).toBe(false);
  });

  it('every file or folder a non-test source names in a comment exists', () => {
    expect(danglingReferences()).toEqual([]);
  }, 60_000);
});
