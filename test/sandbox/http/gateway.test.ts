import type { Sandbox } from '../../../sandbox';
import { ApiTestClient, rawRequest, useTestSandbox } from '../helpers';
import { specSignedHeaders } from '../signer';

describe('gateway prefix (spec 5.3 rule 6)', () => {
	let sandbox: Sandbox;
	let api: ApiTestClient;

	useTestSandbox('all', (started) => ({ sandbox, api } = started), { gatewayPrefix: '/partner/' });

	it('baseUrl carries the prefix, controlUrl does not', () => {
		expect(sandbox.info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/partner$/);
		expect(sandbox.info.controlUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_control$/);
	});

	it('serves the API under the prefix with the prefix left out of the signed path', async () => {
		const response = await api.call('GET', '/money/v1/charge?page=1');
		expect(response.status).toBe(200);
	});

	it('a signature over the prefixed path fails', async () => {
		const token = await api.fetchToken();
		const response = await rawRequest({
			origin: sandbox.info.baseUrl,
			method: 'GET',
			path: '/partner/money/v1/account',
			headers: { authorization: `Bearer ${token}`, ...specSignedHeaders(sandbox.info.hmacSecret, 'GET', '/partner/money/v1/account') },
		});
		expect(response.status).toBe(401);
	});

	it('a request without the prefix is not routed', async () => {
		const token = await api.fetchToken();
		const response = await rawRequest({
			origin: sandbox.info.baseUrl,
			method: 'GET',
			path: '/money/v1/account',
			headers: { authorization: `Bearer ${token}`, ...specSignedHeaders(sandbox.info.hmacSecret, 'GET', '/money/v1/account') },
		});
		expect(response.status).toBe(404);
		expect((await rawRequest({ origin: sandbox.info.baseUrl, method: 'GET', path: '/partnerx/money/v1/account' })).status).toBe(404);
	});
});
