// Every string <service-widget> shows, in English and French. `fr` is typed against `en`, so a
// missing translation fails the type check; at run time an unknown language falls back to English.
// `{name}` placeholders are filled by `format`.

const en = {
  title: 'Connect your domain',
  demo: 'Demo: simulated data, nothing is sent.',
  steps: 'Progress',
  step1: 'Domain',
  step2: 'DNS records',
  step3: 'HTTPS',
  done: 'done',
  hostnameLabel: 'Your domain',
  hostnameHint: 'For example shop.example.com',
  continue: 'Continue',
  working: 'Please wait…',
  dnsTitle: 'Add these DNS records',
  dnsIntro: 'Add them where the DNS of this zone is managed:',
  records: 'Records to add',
  type: 'Type',
  name: 'Name',
  value: 'Value',
  fullName: 'Full name:',
  dnsForm: 'In DNS:',
  copy: 'Copy',
  copyName: 'Copy name {v}',
  copyValue: 'Copy value {v}',
  copied: 'Copied',
  copyFailed: 'Copy failed: select and copy',
  checkTitle: 'Last DNS check',
  notChecked: 'Not checked yet.',
  checkedAt: 'Checked at {time}',
  expected: 'Expected',
  found: 'Found',
  dnsOk: 'The records are correct.',
  added: 'I added the records',
  change: 'Use another domain',
  statusTitle: 'HTTPS status',
  updatedAt: 'Updated at {time}',
  checkNow: 'Check now',
  checking: 'Checking…',
  back: 'Back to the records',
  visit: 'Open',
  yours: 'Your domains',
  kept: 'is kept: come back to it below whenever you like.',
  statusIs: 'Status: {status}',
  stage1: 'DNS records found',
  stage2: 'Certificate issued',
  stage3: 'HTTPS active',
  s_pending_dns: 'Waiting for DNS',
  s_pending_certificate: 'Issuing the certificate',
  s_active: 'HTTPS is active',
  s_failed: 'Setup stopped',
  s_suspended: 'Suspended',
  s_deleting: 'Being removed',
  s_deleted: 'Removed',
  d_pending_dns: 'We check every 10 seconds; new records can take a few minutes to appear.',
  d_pending_certificate: 'DNS is correct. Getting a certificate, usually within a minute.',
  d_active: 'Your domain is served over HTTPS. All done.',
  d_stopped: 'Contact support to continue.',
  d_removed: 'This domain is being removed.',
  o_label: 'Ownership',
  c_label: 'Certificate',
  t_wait: 'waiting',
  t_issued: 'issued',
  t_ok: 'ready',
  h_nxdomain: 'The name does not exist yet: add the record above.',
  h_no_records: 'The name has no CNAME, A or AAAA record: add the record above.',
  h_wrong_target: 'The record points elsewhere: use the value above.',
  h_conflicting_records: 'Other records on this name conflict: delete them.',
  h_caa_forbids_ca: 'A CAA record forbids our certificate authority: remove it or allow letsencrypt.org.',
  h_cloudflare: 'Turn off the Cloudflare proxy (orange cloud): the record must be “DNS only”.',
  h_proxied_by_cdn: 'The name goes through another CDN: point it directly at the value above.',
  h_lookup_failed: 'Your DNS servers did not answer. We will retry.',
  h_certificate: 'The certificate authority could not validate the domain yet. We will retry.',
  h_other: 'Something still blocks progress: check the records above.',
  e_setup: 'Connecting a domain is not available on this page yet. Please contact support.',
  e_widget_token_expired: 'Your session expired: reload the page.',
  e_domain_conflict: 'This domain is already connected.',
  e_widget_domain_not_found: 'Domain not found for this session.',
  e_widget_request_failed: 'The request failed. Try again.',
  e_rate_limited: 'Too many attempts. Wait a moment.',
  e_network: 'The service cannot be reached. Try again in a moment.',
  e_retrying: 'The service cannot be reached. Retrying…',
  v_empty: 'Enter a domain.',
  v_not_a_hostname: 'Enter only a domain name: no https://, path, port, IP address or *.',
  v_invalid: 'Not a valid domain: use letters, digits, hyphens and dots.',
  v_too_long: 'This domain is too long.',
  v_single_label: 'Enter a full domain, like shop.example.com.',
  v_not_allowed: 'This domain cannot be used; enter your own.',
};

export type Key = keyof typeof en;
export type Lang = 'en' | 'fr';

const fr: Record<Key, string> = {
  title: 'Connectez votre domaine',
  demo: 'Démo : données simulées, rien n’est envoyé.',
  steps: 'Progression',
  step1: 'Domaine',
  step2: 'Enregistrements DNS',
  step3: 'HTTPS',
  done: 'terminée',
  hostnameLabel: 'Votre domaine',
  hostnameHint: 'Par exemple boutique.exemple.fr',
  continue: 'Continuer',
  working: 'Patientez…',
  dnsTitle: 'Ajoutez ces enregistrements DNS',
  dnsIntro: 'Ajoutez-les là où le DNS de cette zone est géré :',
  records: 'Enregistrements à ajouter',
  type: 'Type',
  name: 'Nom',
  value: 'Valeur',
  fullName: 'Nom complet :',
  dnsForm: 'Dans le DNS :',
  copy: 'Copier',
  copyName: 'Copier le nom {v}',
  copyValue: 'Copier la valeur {v}',
  copied: 'Copié',
  copyFailed: 'Échec : sélectionnez et copiez',
  checkTitle: 'Dernière vérification DNS',
  notChecked: 'Pas encore vérifié.',
  checkedAt: 'Vérifié à {time}',
  expected: 'Attendu',
  found: 'Trouvé',
  dnsOk: 'Les enregistrements sont corrects.',
  added: 'J’ai ajouté les enregistrements',
  change: 'Utiliser un autre domaine',
  statusTitle: 'Statut HTTPS',
  updatedAt: 'Mis à jour à {time}',
  checkNow: 'Vérifier maintenant',
  checking: 'Vérification…',
  back: 'Revenir aux enregistrements',
  visit: 'Ouvrir',
  yours: 'Vos domaines',
  kept: 'est conservé : revenez-y ci-dessous quand vous voulez.',
  statusIs: 'Statut : {status}',
  stage1: 'Enregistrements DNS trouvés',
  stage2: 'Certificat émis',
  stage3: 'HTTPS actif',
  s_pending_dns: 'En attente du DNS',
  s_pending_certificate: 'Émission du certificat',
  s_active: 'HTTPS est actif',
  s_failed: 'Configuration interrompue',
  s_suspended: 'Suspendu',
  s_deleting: 'Suppression en cours',
  s_deleted: 'Supprimé',
  d_pending_dns: 'Nous vérifions toutes les 10 secondes ; un enregistrement peut mettre quelques minutes à apparaître.',
  d_pending_certificate: 'Le DNS est correct. Obtention du certificat, en général en moins d’une minute.',
  d_active: 'Votre domaine est servi en HTTPS. C’est terminé.',
  d_stopped: 'Contactez le support pour continuer.',
  d_removed: 'Ce domaine est en cours de suppression.',
  o_label: 'Propriété',
  c_label: 'Certificat',
  t_wait: 'en attente',
  t_issued: 'émis',
  t_ok: 'prêt',
  h_nxdomain: 'Ce nom n’existe pas encore : ajoutez l’enregistrement ci-dessus.',
  h_no_records: 'Ce nom n’a aucun enregistrement CNAME, A ou AAAA : ajoutez celui ci-dessus.',
  h_wrong_target: 'L’enregistrement pointe ailleurs : utilisez la valeur ci-dessus.',
  h_conflicting_records: 'D’autres enregistrements sur ce nom gênent : supprimez-les.',
  h_caa_forbids_ca: 'Un enregistrement CAA interdit notre autorité de certification : retirez-le ou autorisez letsencrypt.org.',
  h_cloudflare: 'Désactivez le proxy Cloudflare (nuage orange) : l’enregistrement doit être « DNS uniquement ».',
  h_proxied_by_cdn: 'Ce nom passe par un autre CDN : faites-le pointer vers la valeur ci-dessus.',
  h_lookup_failed: 'Vos serveurs DNS n’ont pas répondu. Nous réessaierons.',
  h_certificate: 'L’autorité de certification n’a pas encore validé le domaine. Nous réessaierons.',
  h_other: 'Quelque chose bloque encore : vérifiez les enregistrements ci-dessus.',
  e_setup: 'La connexion d’un domaine n’est pas encore disponible sur cette page. Contactez le support.',
  e_widget_token_expired: 'Votre session a expiré : rechargez la page.',
  e_domain_conflict: 'Ce domaine est déjà connecté.',
  e_widget_domain_not_found: 'Domaine introuvable pour cette session.',
  e_widget_request_failed: 'La requête a échoué. Réessayez.',
  e_rate_limited: 'Trop de tentatives. Patientez un instant.',
  e_network: 'Le service est injoignable. Réessayez dans un instant.',
  e_retrying: 'Le service est injoignable. Nouvel essai…',
  v_empty: 'Saisissez un domaine.',
  v_not_a_hostname: 'Saisissez seulement un nom de domaine : sans https://, chemin, port, adresse IP ni *.',
  v_invalid: 'Domaine invalide : utilisez des lettres, chiffres, tirets et points.',
  v_too_long: 'Ce domaine est trop long.',
  v_single_label: 'Saisissez un domaine complet, comme boutique.exemple.fr.',
  v_not_allowed: 'Ce domaine ne peut pas être utilisé ; saisissez le vôtre.',
};

export const translations: Record<Lang, Record<Key, string>> = { en, fr };

export function langOf(value: string | null | undefined): Lang {
  const base = (value ?? '').toLowerCase().split('-')[0];
  return base === 'fr' ? 'fr' : 'en';
}

/** The string for `key` in `lang` (English when missing), with `{name}` placeholders filled. */
export function format(lang: Lang, key: Key, vars: Record<string, string | number> = {}): string {
  const text = translations[lang][key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** Hostname refusal reasons (model/hostname.ts) that share a message; the rest use `v_invalid`. */
const REASONS: Record<string, Key> = {
  empty: 'v_empty', not_a_hostname: 'v_not_a_hostname', ip_literal: 'v_not_a_hostname', wildcard: 'v_not_a_hostname',
  too_long: 'v_too_long', label_too_long: 'v_too_long', single_label: 'v_single_label', service_domain: 'v_not_allowed', public_suffix: 'v_not_allowed',
};
const STATUS_TEXT: Record<string, Key> = { failed: 'd_stopped', suspended: 'd_stopped', deleting: 'd_removed', deleted: 'd_removed' };

/** The message for a hostname refusal reason. */
export function reasonKey(reason: string): Key {
  return REASONS[reason] ?? 'v_invalid';
}

/** The description of a status (pending_dns, pending_certificate and active have their own). */
export function statusTextKey(status: string): Key {
  return STATUS_TEXT[status] ?? keyFor('d_', status) ?? 'd_pending_dns';
}

/** A translation key for a dynamic name (status, error code, hint), or null when there is none. */
export function keyFor(prefix: 's_' | 'd_' | 'h_' | 'e_' | 'v_', name: string): Key | null {
  const key = `${prefix}${name}`;
  return key in en ? (key as Key) : null;
}
