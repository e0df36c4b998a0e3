/**
 * A throwaway certificate authority made by openssl for one test run: a CA, a server certificate it signed for
 * 127.0.0.1 and localhost, and a self-signed one for the same names that nothing trusts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findCommand, runCommand } from './system-command.js';

export const OPENSSL_INSTALL_HINT = 'install openssl (Debian/Ubuntu: sudo apt-get install openssl; macOS: brew install openssl)';

export interface TestCertificates {
  /** The CA's certificate file (PEM): for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** Its PEM text: for `new Agent({ connect: { ca } })`. */
  ca: string;
  /** A server certificate and key signed by the CA, for 127.0.0.1 and localhost. */
  cert: string;
  key: string;
  /** A self-signed certificate and key for the same names: no CA vouches for it. */
  untrustedCert: string;
  untrustedKey: string;
}

const CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = avatar-video test
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
`;

/** The openssl command, or an error saying how to install it. */
export function openssl(): string {
  const command = findCommand('openssl');
  if (command === undefined) throw new Error(`no openssl on PATH: ${OPENSSL_INSTALL_HINT}`);
  return command;
}

/** Make the CA and both server certificates in `dir` (P-256 keys: quick to make). */
export async function makeTestCertificates(dir: string): Promise<TestCertificates> {
  const command = openssl();
  const config = join(dir, 'openssl.cnf');
  await writeFile(config, CONFIG);
  const path = (name: string) => join(dir, name);
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-config', config];
  await runCommand(command, [
    'req',
    '-x509',
    ...newKey,
    '-extensions',
    'ca',
    '-days',
    '2',
    '-subj',
    '/CN=avatar-video test CA',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
  ]);
  await runCommand(command, ['req', ...newKey, '-subj', '/CN=127.0.0.1', '-keyout', path('server.key'), '-out', path('server.csr')]);
  const sign = ['-CA', path('ca.pem'), '-CAkey', path('ca.key'), '-CAcreateserial', '-extfile', config, '-extensions', 'server'];
  await runCommand(command, ['x509', '-req', '-in', path('server.csr'), ...sign, '-days', '2', '-out', path('server.pem')]);
  const selfSigned = ['-extensions', 'server', '-days', '2', '-subj', '/CN=127.0.0.1'];
  await runCommand(command, ['req', '-x509', ...newKey, ...selfSigned, '-keyout', path('untrusted.key'), '-out', path('untrusted.pem')]);
  return {
    caFile: path('ca.pem'),
    ca: await readFile(path('ca.pem'), 'utf8'),
    cert: path('server.pem'),
    key: path('server.key'),
    untrustedCert: path('untrusted.pem'),
    untrustedKey: path('untrusted.key'),
  };
}

/** An htpasswd line for squid's basic_ncsa_auth, hashed by `openssl passwd -apr1`. */
export async function passwordLine(user: string, password: string): Promise<string> {
  const hash = await runCommand(openssl(), ['passwd', '-apr1', '-stdin'], `${password}\n`);
  return `${user}:${hash.trim()}\n`;
}
