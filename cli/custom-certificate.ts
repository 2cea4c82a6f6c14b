// `hostgate domains certificate put <domain_id> --cert <chain.pem> --key <key.pem>` and
// `… delete <domain_id>`: the operator's way to what PUT/DELETE /v1/domains/{id}/certificate do
// (same checks, same storage, same workflow signal through the outbox; docs/custom-certificates.md).
import { readFile } from 'node:fs/promises';
import { certificateKeyContext } from '../acme/keys.ts';
import type { Config } from '../config/index.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/pool.ts';
import { customCertificatesRepository, type CustomChange } from '../db/repositories/custom-certificates.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { checkCustomCertificate, loadOperatorCas } from '../model/custom-certificate.ts';
import { SecretBox } from '../security/secret-box.ts';

export class CertificateCommandError extends Error {}

export async function customCertificateCommand(db: Db, config: Config, action: string | undefined, id: string | undefined, files: { cert?: string | undefined; key?: string | undefined }, out: (line: string) => void): Promise<void> {
  if (action !== 'put' && action !== 'delete') throw new CertificateCommandError('domains certificate takes put <domain_id> --cert <file> --key <file>, or delete <domain_id>');
  if (!id) throw new CertificateCommandError(`domains certificate ${action} needs a domain id`);
  const domain = await domainsRepository(db).getById(id);
  if (!domain) throw new CertificateCommandError(`domain ${id} does not exist`);
  const custom = customCertificatesRepository(db);
  const settled = (change: CustomChange) => {
    if (change.result === 'gone') throw new CertificateCommandError(`domain ${id} is ${change.status}: it takes no certificate`);
    if (change.result === 'not_found') throw new CertificateCommandError(`domain ${id} does not exist`);
    return change;
  };
  if (action === 'delete') {
    const change = settled(await db.transaction((tx) => custom.remove(tx, domain.organization_id, id)));
    out(change.certificateId === null ? `${domain.hostname} (${id}) has no custom certificate in place; nothing changed`
      : `custom certificate ${change.certificateId} of ${domain.hostname} taken out of place; a managed one is ordered (served until it is stored)`);
    return;
  }
  if (!files.cert || !files.key) throw new CertificateCommandError('domains certificate put needs --cert <chain.pem> and --key <key.pem>');
  const checked = checkCustomCertificate({
    hostname: domain.hostname, certificatePem: await readFile(files.cert, 'utf8'), privateKeyPem: await readFile(files.key, 'utf8'),
    operatorCas: loadOperatorCas(config.certificates.customCaFile),
  });
  if (!checked.ok) throw new CertificateCommandError(`refused (${checked.code}): ${checked.message}`);
  const box = new SecretBox(config.encryptionKeys);
  const change = settled(await db.transaction((tx) => custom.install(tx, domain.organization_id, id, newId('certificate'), checked.value,
    (certificateId) => box.seal(checked.value.keyPem, certificateKeyContext(certificateId)))));
  out(`custom certificate ${change.certificateId} (serial ${checked.value.serial}, valid until ${checked.value.notAfter}) in place for ${domain.hostname}; the edge serves it within seconds`);
}
