import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { rawRequest } from './helpers';

const repositoryRoot = join(__dirname, '..', '..');

describe('sandbox CLI', () => {
	it('prints exactly one "sandbox ready {json}" line and closes cleanly on SIGTERM', async () => {
		const child = spawn(process.execPath, [join(repositoryRoot, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', 'sandbox/cli.ts', '--port', '0', '--auth-port', '0', '--gateway-prefix', '/gw', '--finalize-after-ms', '60000'], {
			cwd: repositoryRoot,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
		try {
			const line = await new Promise<string>((resolve, reject) => {
				child.stdout.on('data', (chunk: Buffer) => {
					stdout += chunk.toString();
					const newline = stdout.indexOf('\n');
					if (newline !== -1) resolve(stdout.slice(0, newline));
				});
				child.on('exit', (code) => reject(new Error(`cli exited with ${code} before ready: ${stderr}`)));
			});
			expect(line.startsWith('sandbox ready {')).toBe(true);
			const info = JSON.parse(line.slice('sandbox ready '.length));
			expect(info).toMatchObject({
				baseUrl: expect.stringMatching(/\/gw$/),
				authUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
				controlUrl: expect.stringMatching(/\/_control$/),
				clientId: expect.any(String),
				clientSecret: expect.any(String),
				hmacSecret: expect.any(String),
				webhookSecret: expect.any(String),
				rsaPublicKeyPem: expect.stringContaining('BEGIN PUBLIC KEY'),
				pin: expect.any(String),
				payers: expect.arrayContaining([expect.objectContaining({ type: 'gm_account' }), expect.objectContaining({ type: 'phone' })]),
				beneficiaries: expect.any(Array),
			});
			const token = await rawRequest({
				origin: info.authUrl,
				method: 'POST',
				path: '/oauth2/token',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ grant_type: 'client_credentials', client_id: info.clientId, client_secret: info.clientSecret }),
			});
			expect(token.status).toBe(200);
			child.kill('SIGTERM');
			expect(await exited).toBe(0);
			expect(stdout.trim().split('\n')).toHaveLength(1);
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
		}
	});
});
