import { request as httpRequest, createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, publicEncrypt } from 'node:crypto';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { specSignedHeaders } from './signer';

export interface RawResponse {
	status: number;
	headers: IncomingHttpHeaders;
	text: string;
	json: any;
}

export interface RawRequest {
	origin: string;
	method: string;
	/** Sent byte for byte as the request target. */
	path: string;
	headers?: Record<string, string>;
	body?: string | Buffer;
}

export function rawRequest({ origin, method, path, headers = {}, body }: RawRequest): Promise<RawResponse> {
	const url = new URL(origin);
	return new Promise((resolve, reject) => {
		const outgoing = httpRequest(
			{ host: url.hostname, port: url.port, method, path, agent: false, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let json: any = undefined;
					try {
						json = text ? JSON.parse(text) : undefined;
					} catch {
						json = undefined;
					}
					resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
				});
				response.on('error', reject);
			},
		);
		outgoing.on('error', reject);
		outgoing.end(body);
	});
}

export const FAST_WEBHOOKS = { webhooks: { baseDelayMs: 20, timeoutMs: 2_000, maxAttempts: 5 } };

export async function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	return startSandbox({ ...options, config: { ...FAST_WEBHOOKS, ...options.config } });
}

export interface StartedSandbox {
	sandbox: Sandbox;
	api: ApiTestClient;
}

/**
 * The setup of most suites: before all (or each) of the enclosing describe's tests, starts a test
 * sandbox and an ApiTestClient on it and hands both to `use`; closes the sandbox after.
 */
export function useTestSandbox(scope: 'all' | 'each', use: (started: StartedSandbox) => void, options: SandboxOptions = {}): void {
	const [before, after] = scope === 'all' ? [beforeAll, afterAll] : [beforeEach, afterEach];
	let sandbox: Sandbox | undefined;
	before(async () => {
		sandbox = await startTestSandbox(options);
		use({ sandbox, api: new ApiTestClient(sandbox) });
	});
	after(() => sandbox?.close());
}

export interface CallOptions {
	body?: unknown;
	rawBody?: string;
	headers?: Record<string, string>;
	auth?: 'bearer' | 'api-key' | 'none';
	sign?: boolean;
	timestamp?: number;
	hmacSecret?: string;
	idempotencyKey?: string;
}

export class ApiTestClient {
	private token: string | undefined;

	constructor(
		readonly sandbox: Sandbox,
		readonly credentials = {
			clientId: sandbox.info.clientId,
			clientSecret: sandbox.info.clientSecret,
			apiKey: sandbox.info.apiKey,
			hmacSecret: sandbox.info.hmacSecret,
		},
		private readonly basePrefix = new URL(sandbox.info.baseUrl).pathname.replace(/\/$/, ''),
	) {}

	async fetchToken(): Promise<string> {
		const response = await rawRequest({
			origin: this.sandbox.info.authUrl,
			method: 'POST',
			path: '/oauth2/token',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ grant_type: 'client_credentials', client_id: this.credentials.clientId, client_secret: this.credentials.clientSecret }),
		});
		if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${response.text}`);
		this.token = response.json.access_token as string;
		return this.token;
	}

	forgetToken(): void {
		this.token = undefined;
	}

	/** `path` is the signed path (after any gateway prefix); the prefix is added on the wire. */
	async call(method: string, path: string, options: CallOptions = {}): Promise<RawResponse> {
		const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
		const headers: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
		const auth = options.auth ?? 'bearer';
		if (auth === 'bearer') headers.authorization = `Bearer ${this.token ?? (await this.fetchToken())}`;
		if (auth === 'api-key') headers['x-api-key'] = this.credentials.apiKey;
		if (options.sign !== false) {
			Object.assign(headers, specSignedHeaders(options.hmacSecret ?? this.credentials.hmacSecret, method, path, body, options.timestamp));
		}
		if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
		Object.assign(headers, options.headers);
		return rawRequest({ origin: new URL(this.sandbox.info.baseUrl).origin, method, path: `${this.basePrefix}${path}`, headers, body });
	}

	/** Creates a charge (or, with `payout`, a payout) from the default test body and returns its reference. */
	async create(resource: 'charge' | 'payout', overrides: Record<string, unknown> = {}): Promise<string> {
		const body = resource === 'charge' ? chargeBody(overrides) : payoutBody(overrides);
		const response = await this.call('POST', `/money/v1/${resource}`, { body });
		if (response.status !== 201) throw new Error(`create ${resource} failed: ${response.status} ${response.text}`);
		return response.json.reference as string;
	}
}

export function chargeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		amount: 5000,
		currency: 'XOF',
		payer_identifier: { identifier: 'GM-1001', type: 'gm_account' },
		channel: 'psp-a-tg',
		pin: '1234',
		...overrides,
	};
}

/** What a PENDING charge made from chargeBody() reads back as (spec 2.4 envelope), for toMatchObject. */
export function pendingChargeEnvelope(sandbox: Sandbox, reference: string, sharedNote: string | null = null): Record<string, unknown> {
	return {
		reference,
		status: { code: 0, label: 'PENDING' },
		type: 'charge',
		amount: { value: 5000, currency: 'XOF' },
		balance_after: { value: expect.any(Number), currency: 'XOF' },
		counterpart_account: { identifier: 'GM-1001', channel: 'psp-a-tg', name: 'Afi Mensah' },
		account: { identifier: sandbox.info.merchantAccountNumber, channel: 'psp-a-tg', name: expect.any(String) },
		category: { id: expect.any(String), label: expect.any(String) },
		note: null,
		shared_note: sharedNote,
		description: expect.any(String),
		payment_references: [],
	};
}

export function payoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		amount: 2500,
		currency: 'XOF',
		beneficiary_identifier: { identifier: '+22890000002', type: 'phone' },
		beneficiary_account_type: 'Driver',
		channel: 'psp-b-tg',
		pin: '1234',
		...overrides,
	};
}

export function encryptPin(publicKeyPem: string, pin: string): string {
	return publicEncrypt({ key: publicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(pin)).toString('base64');
}

export interface ReceivedWebhook {
	path: string;
	headers: IncomingHttpHeaders;
	rawBody: Buffer;
	json: any;
}

export interface Receiver {
	url: string;
	received: ReceivedWebhook[];
	close(): Promise<void>;
}

export async function startReceiver(answer: (hook: ReceivedWebhook, index: number) => number = () => 200, path = '/hooks/money?tenant=a'): Promise<Receiver> {
	const received: ReceivedWebhook[] = [];
	const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const rawBody = Buffer.concat(chunks);
			const hook = { path: request.url ?? '', headers: request.headers, rawBody, json: JSON.parse(rawBody.toString('utf8')) };
			received.push(hook);
			response.writeHead(answer(hook, received.length - 1));
			response.end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}${path}`,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
