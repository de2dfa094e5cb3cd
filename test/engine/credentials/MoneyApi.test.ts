import type { INode } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../../sandbox';
import {
	buildWorkflow,
	CREDENTIAL_ID,
	CREDENTIAL_TYPE,
	credentialFromSandbox,
	type Engine,
	loadEngine,
	runWorkflow,
	SIGNED_GET_FIXTURE,
} from '../../harness/engine';
import { findSecrets } from '../../harness/secrets';

const CREDENTIALS = { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: 'Money API account' } };

function signedGetNode(parameters: INode['parameters'], name = 'Signed GET'): INode {
	return {
		id: name,
		name,
		type: SIGNED_GET_FIXTURE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: CREDENTIALS,
	};
}

function httpRequestNode(url: string, query: Record<string, string>): INode {
	return {
		id: 'http',
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [0, 0],
		parameters: {
			method: 'GET',
			url,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: CREDENTIAL_TYPE,
			sendQuery: true,
			queryParameters: { parameters: Object.entries(query).map(([name, value]) => ({ name, value })) },
			options: {},
		},
		credentials: CREDENTIALS,
	};
}

const items = (count: number) => Array.from({ length: count }, (_, index) => ({ json: { index } }));

describe('Money API credential in a real n8n execution', () => {
	let engine: Engine;
	let sandbox: Sandbox;
	let gatewaySandbox: Sandbox;

	beforeAll(async () => {
		engine = await loadEngine(['n8n-nodes-base.httpRequest']);
		sandbox = await startSandbox({ finalizeAfterMs: null });
		gatewaySandbox = await startSandbox({ finalizeAfterMs: null, gatewayPrefix: '/partner' });
	});

	afterAll(async () => {
		await sandbox?.close();
		await gatewaySandbox?.close();
	});

	beforeEach(() => {
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info));
	});

	const secrets = () => ({
		clientSecret: sandbox.info.clientSecret,
		apiKey: sandbox.info.apiKey,
		hmacSecret: sandbox.info.hmacSecret,
		webhookSecret: sandbox.info.webhookSecret,
		pin: sandbox.info.pin,
		accessTokens: [String(engine.credentials.stored(CREDENTIAL_ID).accessToken ?? '')],
	});

	it('signs a call the sandbox verifies with its own code, and fetches one token for 50 items and two executions', async () => {
		const before = (await sandbox.control.counters()).tokenRequests;
		const workflow = buildWorkflow(engine, {
			nodes: [signedGetNode({ path: '/money/v1/account' })],
		});

		const first = await runWorkflow(engine, workflow, { items: items(50) });
		const second = await runWorkflow(engine, workflow, { items: items(50) });

		expect(first.error()).toBeUndefined();
		expect(second.error()).toBeUndefined();
		expect(first.output('Signed GET')).toHaveLength(50);
		expect(second.output('Signed GET')[49].json).toMatchObject({ success: true, id: expect.any(String) });
		expect((await sandbox.control.counters()).tokenRequests - before).toBe(1);
		expect(engine.credentials.persistedUpdates.filter((update) => update.id === CREDENTIAL_ID)).toHaveLength(1);
		expect(engine.credentials.stored(CREDENTIAL_ID).accessToken).not.toBe('');
		expect(findSecrets([first.run, second.run], secrets())).toEqual([]);
	});

	it('refreshes a revoked token once and the call succeeds', async () => {
		const workflow = buildWorkflow(engine, { nodes: [signedGetNode({ path: '/money/v1/account' })] });
		await runWorkflow(engine, workflow);
		const before = (await sandbox.control.counters()).tokenRequests;

		await sandbox.control.revokeTokens(sandbox.info.clientId);
		const result = await runWorkflow(engine, workflow, { items: items(5) });

		expect(result.error()).toBeUndefined();
		expect(result.output('Signed GET')).toHaveLength(5);
		expect((await sandbox.control.counters()).tokenRequests - before).toBe(1);
	});

	it('signs a POST whose body has non-ASCII text, byte for byte', async () => {
		const payer = sandbox.info.payers.find((entry) => entry.type === 'gm_account')!;
		const workflow = buildWorkflow(engine, {
			nodes: [
				signedGetNode({
					method: 'POST',
					path: '/money/v1/charge',
					body: {
						amount: 1500,
						currency: 'XOF',
						channel: 'psp-a-tg',
						pin: sandbox.info.pin,
						payer_identifier: { identifier: payer.identifier, type: payer.type },
						payer_account_type: payer.account_type,
						message: 'Reçu n° 42 – café ☕ pour Lomé',
					},
				}),
			],
		});
		const result = await runWorkflow(engine, workflow);
		expect(result.error()).toBeUndefined();
		expect(result.output('Signed GET')[0].json).toMatchObject({ success: true, reference: expect.any(String) });
	});

	it('signs requests of the HTTP Request node with the predefined credential, query string included', async () => {
		const workflow = buildWorkflow(engine, {
			nodes: [
				httpRequestNode(`${sandbox.info.baseUrl}/money/v1/charge`, {
					page: '1',
					limit: '5',
					start_date: '2020-01-01T00:00:00.000Z',
				}),
			],
		});
		const result = await runWorkflow(engine, workflow);
		expect(result.error()).toBeUndefined();
		expect(result.output('HTTP Request')[0].json).toMatchObject({
			success: true,
			pagination: { page: 1, limit: 5 },
		});
	});

	it('leaves the gateway prefix of the base URL out of the signed path', async () => {
		expect(gatewaySandbox.info.baseUrl).toMatch(/\/partner$/);
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(gatewaySandbox.info));
		const workflow = buildWorkflow(engine, {
			nodes: [
				signedGetNode({ path: '/money/v1/charge', query: { limit: 3 } }),
				{ ...httpRequestNode(`${gatewaySandbox.info.baseUrl}/money/v1/account`, { probe: 'a b' }), position: [200, 0] },
			],
			connections: { 'Signed GET': { main: [[{ node: 'HTTP Request', type: 'main', index: 0 }]] } },
		});
		const result = await runWorkflow(engine, workflow);
		expect(result.error()).toBeUndefined();
		expect(result.output('Signed GET')[0].json).toMatchObject({ success: true });
		expect(result.output('HTTP Request')[0].json).toMatchObject({ success: true });
	});

	it('authenticates with the platform API key (x-api-key) and still signs', async () => {
		engine.credentials.set(
			CREDENTIAL_ID,
			CREDENTIAL_TYPE,
			credentialFromSandbox(sandbox.info, { authentication: 'apiKey', clientSecret: '' }),
		);
		const before = (await sandbox.control.counters()).tokenRequests;
		const workflow = buildWorkflow(engine, { nodes: [signedGetNode({ path: '/money/v1/account' })] });
		const result = await runWorkflow(engine, workflow, { items: items(3) });
		expect(result.error()).toBeUndefined();
		expect(result.output('Signed GET')).toHaveLength(3);
		expect((await sandbox.control.counters()).tokenRequests).toBe(before);
	});

	it('reports a wrong client secret as invalid_client without revealing it', async () => {
		const wrongSecret = 'wrong-client-secret-value';
		engine.credentials.set(
			CREDENTIAL_ID,
			CREDENTIAL_TYPE,
			credentialFromSandbox(sandbox.info, { clientSecret: wrongSecret }),
		);
		const workflow = buildWorkflow(engine, { nodes: [signedGetNode({ path: '/money/v1/account' })] });
		const result = await runWorkflow(engine, workflow);
		const error = result.error();
		expect(error).toBeDefined();
		const text = `${error?.message} ${error?.description ?? ''}`;
		expect(text).toMatch(/invalid_client/);
		expect(text).toMatch(/Client ID and Client Secret/);
		expect(findSecrets(result.run, { ...secrets(), clientSecret: wrongSecret })).toEqual([]);
	});

	it('fails a request signed with a wrong HMAC secret (what the credential test catches)', async () => {
		const wrongHmac = 'wrong-hmac-secret-value';
		engine.credentials.set(
			CREDENTIAL_ID,
			CREDENTIAL_TYPE,
			credentialFromSandbox(sandbox.info, { hmacSecret: wrongHmac }),
		);
		const workflow = buildWorkflow(engine, { nodes: [signedGetNode({ path: '/money/v1/account' })] });
		const result = await runWorkflow(engine, workflow);
		expect(result.error()).toBeDefined();
		expect(String((result.error() as { httpCode?: string } | undefined)?.httpCode ?? '')).toBe('401');
	});

	it('declares a signed GET /money/v1/account as its credential test', () => {
		const type = engine.credentialTypes.get(CREDENTIAL_TYPE)!;
		expect(type.test?.request).toMatchObject({ url: '/money/v1/account', method: 'GET' });
	});
});
