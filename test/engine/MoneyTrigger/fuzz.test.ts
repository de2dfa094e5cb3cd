import { signWebhook } from '../../../sandbox/domain/webhooks';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine, type Engine } from '../../harness/engine';
import { findSecrets } from '../../harness/secrets';
import { harnessRequest, postRaw, WebhookHarness } from '../../harness/webhook';
import { verifyBodyHmacWebhook, verifyRequestStyleWebhook } from '../../sandbox/signer';

/*
 * 10,000 forged deliveries (mutated from validly signed ones, or random) through the Money
 * Trigger's webhook() in n8n-core's real WebhookContext in-process, plus 300 over HTTP. Each
 * mutant is judged by an independent oracle (the test signer written from docs/decisions.md#d1, not the pack's
 * code): anything it does not find validly signed with the secret must be refused and start no
 * execution. Mutants it still finds validly signed (an intact signature beside a changed URL,
 * say) are counted apart, must be accepted, and do not count towards the 10,000.
 */
const IN_PROCESS = 10_000;
const OVER_HTTP = 300;
const SEED = Number(process.env.FUZZ_SEED ?? 20240501);
const SECRET = 'whsec_fuzz_only_3c9d1e7a5b';

function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const random = mulberry32(SEED);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
const int = (max: number) => Math.floor(random() * max);
const randomBytes = (length: number) => Buffer.from(Array.from({ length }, () => int(256)));
const hex = (length: number) => Array.from({ length }, () => '0123456789abcdef'[int(16)]).join('');

type Headers = Record<string, string | string[] | undefined>;

interface Delivery {
	url: string;
	headers: Headers;
	body: Buffer;
	mutations: string[];
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function freshEvent(): Buffer {
	const reference = `chg_fuzz_${hex(10)}`;
	const resource = pick(['charge', 'payout'] as const);
	const status = pick(['COMPLETED', 'FAILED', 'CANCELLED', 'PENDING', 'REVERSED']);
	return Buffer.from(
		JSON.stringify({
			id: `evt_${hex(16)}`,
			event: `${resource}.${status.toLowerCase()}`,
			created_at: new Date().toISOString(),
			data: {
				reference,
				status: { code: 1, label: status },
				type: resource === 'payout' ? pick(['payout', 'transfer']) : 'charge',
				channel: pick(['platform', 'psp-a-tg', 'psp-b-tg']),
				amount: { value: resource === 'payout' ? -(1 + int(100000)) : 1 + int(100000), currency: pick(['XOF', 'XAF']) },
				created_at: new Date().toISOString(),
				note: pick([null, 'ok', 'é ✓ 𝄞']),
			},
		}),
	);
}

function sign(url: string, body: Buffer, scheme: 'request-style' | 'body-hmac', secret = SECRET, timestamp = nowSeconds()): Headers {
	const absolute = url.startsWith('/') ? `http://127.0.0.1${url}` : url;
	return signWebhook({ url: absolute, scheme, secret }, body.toString('utf8'), timestamp);
}

/** The node's documented rule, computed with the independent signer. */
function oracleAccepts(delivery: Delivery, publicPath: string): boolean {
	const single = (name: string): string | undefined => {
		const entry = Object.entries(delivery.headers).find(([key]) => key.toLowerCase() === name);
		return typeof entry?.[1] === 'string' ? entry[1].trim() : undefined;
	};
	const timestamp = single('x-timestamp');
	if (!timestamp || !/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds() - Number(timestamp)) > 300) return false;
	const parsed = new URL(delivery.url, 'http://placeholder');
	const requestPath = delivery.url.startsWith('http') ? parsed.pathname + parsed.search : delivery.url;
	const query = requestPath.includes('?') ? requestPath.slice(requestPath.indexOf('?')) : '';
	const requestSignature = single('x-hmac-signature')?.toLowerCase();
	if (requestSignature) {
		for (const path of [requestPath, publicPath + query]) {
			if (verifyRequestStyleWebhook(SECRET, path, delivery.body, timestamp, requestSignature)) return true;
		}
	}
	const bodySignature = single('x-webhook-signature')?.toLowerCase();
	return bodySignature !== undefined && verifyBodyHmacWebhook(SECRET, delivery.body, timestamp, bodySignature);
}

function mutateBody(body: Buffer): [Buffer, string] {
	const copy = Buffer.from(body);
	switch (int(7)) {
		case 0: {
			const index = int(copy.length);
			copy[index] ^= 1 << int(8);
			return [copy, 'body-bit-flip'];
		}
		case 1: {
			const index = int(copy.length + 1);
			return [Buffer.concat([copy.subarray(0, index), randomBytes(1 + int(3)), copy.subarray(index)]), 'body-insert'];
		}
		case 2: {
			const index = int(copy.length);
			return [Buffer.concat([copy.subarray(0, index), copy.subarray(index + 1 + int(4))]), 'body-delete'];
		}
		case 3:
			return [copy.subarray(0, int(copy.length)), 'body-truncate'];
		case 4:
			try {
				return [Buffer.from(JSON.stringify(JSON.parse(copy.toString('utf8')), null, pick([1, 2, '\t']))), 'body-reformat'];
			} catch {
				return [Buffer.concat([copy, Buffer.from(' ')]), 'body-trailing-space'];
			}
		case 5: {
			const text = copy.toString('utf8').replace(/"value":-?\d+/, `"value":${int(1_000_000)}`);
			return [Buffer.from(text), 'body-amount'];
		}
		default: {
			const text = copy.toString('utf8').replace(/"label":"[A-Z]+"/, `"label":"${pick(['COMPLETED', 'PENDING', 'REVERSED'])}"`);
			return [Buffer.from(text), 'body-status'];
		}
	}
}

function mutate(delivery: Delivery, publicPath: string): void {
	const headers = delivery.headers;
	const signatureHeader = headers['x-hmac-signature'] !== undefined ? 'x-hmac-signature' : 'x-webhook-signature';
	const otherHeader = signatureHeader === 'x-hmac-signature' ? 'x-webhook-signature' : 'x-hmac-signature';
	const signature = String(headers[signatureHeader]);
	const timestamp = String(headers['x-timestamp']);
	const operator = int(16);
	switch (operator) {
		case 0:
		case 1:
		case 2: {
			const [body, name] = mutateBody(delivery.body);
			delivery.body = body;
			delivery.mutations.push(name);
			return;
		}
		case 3:
			headers[signatureHeader] = hex(64);
			delivery.mutations.push('signature-random');
			return;
		case 4: {
			const index = int(64);
			const replacement = pick([...'0123456789abcdef'].filter((char) => char !== signature[index]));
			headers[signatureHeader] = signature.slice(0, index) + replacement + signature.slice(index + 1);
			delivery.mutations.push('signature-one-char');
			return;
		}
		case 5:
			headers[signatureHeader] = pick([
				signature.slice(0, 63),
				`${signature}0`,
				`sha256=${signature}`,
				signature.slice(0, 32),
				'',
				`${signature},${signature}`,
				Buffer.from(signature, 'hex').toString('base64'),
			]);
			delivery.mutations.push('signature-format');
			return;
		case 6: {
			const shift = pick([1, -1, 2, 60, -60, 299, -299]);
			headers['x-timestamp'] = String(Number(timestamp) + shift);
			delivery.mutations.push('timestamp-shift');
			return;
		}
		case 7: {
			const shift = pick([301, -301, 3600, -3600, 86_400 * 365, -Number(timestamp)]);
			const stale = Number(timestamp) + shift;
			headers['x-timestamp'] = String(stale);
			if (random() < 0.5) Object.assign(headers, sign(delivery.url, delivery.body, signatureHeader === 'x-hmac-signature' ? 'request-style' : 'body-hmac', SECRET, stale));
			delivery.mutations.push('timestamp-stale');
			return;
		}
		case 8:
			headers['x-timestamp'] = pick(['', 'abc', `${timestamp}.0`, `0${timestamp}`, `${timestamp} 1`, '-1', `${timestamp}e0`, '9'.repeat(13), undefined as unknown as string]);
			delivery.mutations.push('timestamp-malformed');
			return;
		case 9:
			headers[otherHeader] = signature;
			delete headers[signatureHeader];
			delivery.mutations.push('scheme-swap');
			return;
		case 10:
			headers[otherHeader] = hex(64);
			headers[signatureHeader] = hex(64);
			delivery.mutations.push('scheme-both-wrong');
			return;
		case 11: {
			const path = pick([`${publicPath}?x=1`, `${publicPath}/`, publicPath.toUpperCase(), `${publicPath}%20`, `/webhook/other/money`, `${publicPath}?tenant=a&x=1`, `/${publicPath}`]);
			const signedFor = `http://127.0.0.1${path}`;
			if (random() < 0.5) delivery.url = path;
			else Object.assign(headers, sign(signedFor, delivery.body, 'request-style'));
			delivery.mutations.push('path-change');
			return;
		}
		case 12: {
			const secret = pick(['', 'secret', SECRET.slice(0, -1), `${SECRET}x`, SECRET.toUpperCase(), hex(32), ` ${SECRET}`]);
			Object.assign(headers, sign(delivery.url, delivery.body, pick(['request-style', 'body-hmac'] as const), secret));
			delivery.mutations.push('wrong-secret');
			return;
		}
		case 13:
			headers[signatureHeader] = [signature, hex(64)];
			delivery.mutations.push('header-repeated');
			return;
		case 14: {
			const bodyHmacOverOtherTimestamp = sign(delivery.url, delivery.body, 'body-hmac', SECRET, Number(timestamp) - 1);
			headers['x-webhook-signature'] = String(bodyHmacOverOtherTimestamp['x-webhook-signature']);
			delete headers['x-hmac-signature'];
			delivery.mutations.push('body-hmac-other-timestamp');
			return;
		}
		default:
			delivery.body = randomBytes(int(400));
			headers[signatureHeader] = hex(64);
			delivery.mutations.push('random-garbage');
	}
}

function makeMutant(baseUrl: string, publicPath: string): Delivery {
	const body = freshEvent();
	const scheme = pick(['request-style', 'body-hmac'] as const);
	const delivery: Delivery = { url: baseUrl, headers: sign(`http://127.0.0.1${publicPath}`, body, scheme), body, mutations: [] };
	const rounds = 1 + (random() < 0.3 ? int(3) : 0);
	for (let round = 0; round < rounds; round++) mutate(delivery, publicPath);
	return delivery;
}

describe('Money Trigger fuzz: no delivery is accepted without the secret', () => {
	let engine: Engine;
	let harness: WebhookHarness;

	beforeAll(async () => {
		engine = await loadEngine();
		engine.credentials.set(
			CREDENTIAL_ID,
			CREDENTIAL_TYPE,
			credentialFromSandbox({
				baseUrl: 'http://127.0.0.1:9',
				authUrl: 'http://127.0.0.1:9',
				clientId: 'fuzz',
				clientSecret: 'fuzz-client-secret',
				hmacSecret: 'fuzz-hmac-secret',
				webhookSecret: SECRET,
				pin: '0000',
			}),
		);
		harness = new WebhookHarness(engine, { parameters: { statuses: [], resources: [] } });
		await harness.listen();
		await harness.activate();
	});

	afterAll(async () => {
		await harness?.close();
	});

	it(`refuses ${IN_PROCESS} mutated deliveries in-process and ${OVER_HTTP} over HTTP`, async () => {
		const publicPath = harness.webhookPath;
		const started = Date.now();
		const tally: Record<string, number> = {};
		const breaches: string[] = [];
		let authentic = 0;
		let forged = 0;
		let refusedForged = 0;

		const judge = (delivery: Delivery, status: number, executed: boolean): boolean => {
			const isAuthentic = oracleAccepts(delivery, publicPath);
			for (const name of delivery.mutations) tally[name] = (tally[name] ?? 0) + 1;
			if (isAuthentic) {
				authentic++;
				return false;
			}
			forged++;
			if (status >= 200 && status < 300) breaches.push(`${status} ${delivery.mutations.join('+')}`);
			else if (executed) breaches.push(`executed ${delivery.mutations.join('+')}`);
			else refusedForged++;
			return true;
		};

		let forgedInProcess = 0;
		let sentInProcess = 0;
		while (forgedInProcess < IN_PROCESS) {
			const delivery = makeMutant(publicPath, publicPath);
			const executionsBefore = harness.executions.length;
			const record = await harness.deliver(harnessRequest(delivery.url, delivery.headers, delivery.body));
			sentInProcess++;
			if (judge(delivery, record.status, harness.executions.length > executionsBefore)) forgedInProcess++;
		}
		const inProcessMs = Date.now() - started;

		const httpStarted = Date.now();
		let overHttp = 0;
		while (overHttp < OVER_HTTP) {
			const delivery = makeMutant(publicPath, publicPath);
			if (!delivery.url.startsWith('/webhook/') || delivery.url.split('?')[0] !== publicPath) continue;
			if (Object.values(delivery.headers).some((value) => Array.isArray(value) || value === undefined)) continue;
			if (Object.values(delivery.headers).some((value) => /[^\x20-\x7e]/.test(String(value)))) continue;
			const executionsBefore = harness.executions.length;
			const response = await postRaw(
				`${harness.url}${delivery.url.slice(publicPath.length)}`,
				delivery.headers as Record<string, string>,
				delivery.body,
			);
			if (judge(delivery, response.status, harness.executions.length > executionsBefore)) overHttp++;
		}
		const httpMs = Date.now() - httpStarted;

		const controls = 25;
		for (let index = 0; index < controls; index++) {
			const body = freshEvent();
			const headers = sign(harness.url, body, pick(['request-style', 'body-hmac'] as const));
			expect((await postRaw(harness.url, headers as Record<string, string>, body)).status).toBe(200);
		}

		const summary = {
			seed: SEED,
			deliveries: forged + authentic,
			sentInProcess,
			forgedInProcess,
			forgedOverHttp: overHttp,
			forged,
			refusedForged,
			authenticMutants: authentic,
			breaches: breaches.length,
			inProcessMs,
			httpMs,
			crashes: harness.counts().crashes,
			operators: tally,
		};
		console.log(`Money Trigger fuzz summary ${JSON.stringify(summary)}`);

		expect(breaches).toEqual([]);
		expect(forged).toBe(IN_PROCESS + OVER_HTTP);
		expect(refusedForged).toBe(forged);
		expect(harness.counts().crashes).toBe(0);
		expect(harness.executions.length).toBe(controls + authentic);
		expect(
			findSecrets(harness.deliveries.map((delivery) => delivery.body), { webhookSecret: SECRET, hmacSecret: 'fuzz-hmac-secret' }),
		).toEqual([]);
	}, 180_000);
});
