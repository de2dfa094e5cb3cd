import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../../../sandbox';
import { SandboxControlClient, SandboxControlError } from '../../../sandbox/control/client';
import { startTestSandbox } from '../helpers';

/** What the client took over from the scripts' former JavaScript copy: `call`, a per-call bound, tolerant parsing. */
describe('SandboxControlClient: call, timeout, answers that are not JSON', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startTestSandbox();
	});
	afterAll(() => sandbox.close());

	it('call reaches any control route (here the one behind setRevokeEvery)', async () => {
		const control = new SandboxControlClient(`${sandbox.info.controlUrl}/`);
		await control.call('PUT', '/revoke-every', { every: null });
		expect(await control.call('GET', '/health')).toMatchObject({ ok: true });
		await expect(control.call('GET', '/nothing')).rejects.toMatchObject({ status: 404 });
	});

	describe('against a stand-in server', () => {
		let server: Server;
		let url: string;
		beforeAll(async () => {
			server = createServer((request, response) => {
				if (request.url === '/_control/hang') return;
				if (request.url === '/_control/text') return void response.writeHead(502).end('bad gateway');
				response.writeHead(200).end('plain words');
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_control`;
		});
		afterAll(async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		});

		it('aborts a call that outlives timeoutMs', async () => {
			await expect(new SandboxControlClient(url, { timeoutMs: 50 }).call('GET', '/hang')).rejects.toThrow(/abort|timeout/i);
		});

		it('a text answer resolves as text; a text error rejects with its status and text', async () => {
			const control = new SandboxControlClient(url);
			expect(await control.call('GET', '/words')).toBe('plain words');
			const refused = control.call('GET', '/text');
			await expect(refused).rejects.toBeInstanceOf(SandboxControlError);
			await expect(refused).rejects.toMatchObject({ status: 502, code: 'error', message: expect.stringContaining('bad gateway') });
		});
	});
});
