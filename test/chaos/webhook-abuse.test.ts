import { createHmac, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';

import type { Sandbox, WebhookScheme } from '../../sandbox';
import { signWebhook } from '../../sandbox/domain/webhooks';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, type Engine, loadEngine } from '../harness/engine';
import { postRaw, WebhookHarness } from '../harness/webhook';
import { SecretCapture } from './support/capture';
import { fixedSecrets, pool, startChaosSandbox } from './support/money';
import { ChaosReport } from './support/report';

/**
 * Webhook abuse against the Money Trigger served over HTTP in n8n's real WebhookContext:
 * forged, tampered, stale, replayed, oversized and malformed deliveries are refused without an
 * execution and without crashing; 1,000 valid deliveries sent at once (each twice) run once each.
 */

const CONCURRENT = Math.max(10, Number(process.env.CHAOS_WEBHOOKS ?? 1000) || 1000);
const FIVE_MB = 5 * 1024 * 1024;

const report = new ChaosReport('webhook abuse');
let sb: Sandbox;
let engine: Engine;
const capture = new SecretCapture(() => fixedSecrets(sb));
const harnesses: WebhookHarness[] = [];

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

beforeAll(async () => {
	sb = await startChaosSandbox(901);
	engine = await loadEngine();
	engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sb.info));
	capture.start();
});

afterAll(async () => {
	for (const harness of harnesses) await harness.close();
	capture.stop();
	report.write();
	await sb?.close();
});

async function openTrigger(): Promise<WebhookHarness> {
	const harness = new WebhookHarness(engine, { downstream: true, parameters: { resources: [], statuses: [] } });
	harnesses.push(harness);
	await harness.listen();
	await harness.activate();
	return harness;
}

function envelope(reference: string, status: string, resource: 'charge' | 'payout' = 'charge', amount = 5000) {
	const codes: Record<string, number> = { PENDING: 0, COMPLETED: 1, FAILED: 2, CANCELLED: 3, REVERSED: 4 };
	return {
		reference,
		unique_id: `uid_${reference}`,
		status: { code: codes[status] ?? 9, label: status },
		type: resource,
		channel: 'psp-a-tg',
		amount: { value: resource === 'payout' ? -amount : amount, currency: 'XOF' },
		counterpart_account: { identifier: 'GM-1001', type: 'gm_account', channel: 'psp-a-tg', name: 'Ama' },
		created_at: new Date().toISOString(),
		updated_at: new Date().toISOString(),
	};
}

function eventBody(id: string, reference: string, status = 'COMPLETED', resource: 'charge' | 'payout' = 'charge', amount = 5000): string {
	return JSON.stringify({ id, event: `${resource}.${status.toLowerCase()}`, created_at: new Date().toISOString(), data: envelope(reference, status, resource, amount) });
}

interface SignOptions {
	scheme?: WebhookScheme;
	secret?: string;
	timestamp?: number | string;
	url?: string;
}

/** docs/decisions.md#d1 headers for `body`, remembered as secrets to scan for. */
function sign(harness: WebhookHarness, body: string | Buffer, options: SignOptions = {}): Record<string, string> {
	const timestamp = options.timestamp ?? nowSeconds();
	const target = { url: options.url ?? harness.url, scheme: options.scheme ?? 'request-style', secret: options.secret ?? sb.info.webhookSecret };
	const headers =
		typeof timestamp === 'number'
			? signWebhook(target, typeof body === 'string' ? body : body.toString('latin1'), timestamp)
			: { ...signWebhook(target, String(body), nowSeconds()), 'x-timestamp': timestamp };
	if (Buffer.isBuffer(body) && typeof timestamp === 'number') {
		// Sign the exact bytes (signWebhook takes text); recompute over the buffer.
		const ts = String(timestamp);
		if (target.scheme === 'body-hmac') {
			headers['x-webhook-signature'] = createHmac('sha256', target.secret).update(Buffer.concat([Buffer.from(`${ts}.`), body])).digest('hex');
		} else {
			const url = new URL(target.url);
			const bodyHash = createHmac('sha256', '').update(body.length === 0 ? Buffer.from('""') : body).digest('hex');
			headers['x-hmac-signature'] = createHmac('sha256', target.secret).update(`${ts}\nPOST\n${url.pathname}${url.search}\n${bodyHash}`).digest('hex');
		}
	}
	for (const name of ['x-hmac-signature', 'x-webhook-signature']) if (headers[name]) capture.addSignature(headers[name]);
	return headers;
}

/** A POST without content-length (chunked), as a client streaming a large body sends it. */
function postChunked(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
		});
		request.on('error', reject);
		for (let offset = 0; offset < body.length; offset += 64 * 1024) request.write(body.subarray(offset, offset + 64 * 1024));
		request.end();
	});
}

interface Abuse {
	kind: string;
	label: string;
	send: () => Promise<{ status: number; body: string }>;
}

function abuses(harness: WebhookHarness): Abuse[] {
	const url = harness.url;
	const body = eventBody('evt_abuse_1', 'chg_abuse_1');
	const list: Abuse[] = [];
	// Headers are made when the case is sent, so that timestamps are fresh (or stale) by as much as stated.
	const add = (kind: string, label: string, headers: () => Record<string, string>, payload: string | Buffer = body) =>
		list.push({ kind, label, send: () => postRaw(url, headers(), payload) });

	// Forged: no or wrong signatures.
	add('forged', 'no signature headers', () => ({}));
	add('forged', 'timestamp only', () => ({ 'x-timestamp': String(nowSeconds()) }));
	add('forged', 'random hex signature', () => ({ 'x-timestamp': String(nowSeconds()), 'x-hmac-signature': randomBytes(32).toString('hex') }));
	add('forged', 'empty signature', () => ({ 'x-timestamp': String(nowSeconds()), 'x-hmac-signature': '' }));
	add('forged', 'signed with a guessed secret', () => sign(harness, body, { secret: 'webhook-secret' }));
	add('forged', 'signed with the HMAC (API) secret', () => sign(harness, body, { secret: sb.info.hmacSecret }));
	add('forged', 'signed with the client secret', () => sign(harness, body, { secret: sb.info.clientSecret }));
	add('forged', 'signed with an empty secret', () => sign(harness, body, { secret: '' }));
	add('forged', 'body-hmac with a guessed secret', () => sign(harness, body, { scheme: 'body-hmac', secret: 'guess' }));
	add('forged', 'signature truncated', () => {
		const headers = sign(harness, body);
		return { ...headers, 'x-hmac-signature': headers['x-hmac-signature'].slice(0, 32) };
	});
	add('forged', 'two signatures in one header', () => {
		const headers = sign(harness, body);
		return { ...headers, 'x-hmac-signature': `${randomBytes(32).toString('hex')}, ${headers['x-hmac-signature']}` };
	});

	// Tampered: a valid signature over something else.
	const tamperedAmount = body.replace('"value":5000', '"value":5000000');
	add('tampered', 'amount changed after signing', () => sign(harness, body), tamperedAmount);
	add('tampered', 'status changed after signing', () => sign(harness, body), body.replace('"COMPLETED"', '"REVERSED"'));
	add('tampered', 'whitespace added after signing', () => sign(harness, body), ` ${body}`);
	add('tampered', 'signed for another webhook path', () => sign(harness, body, { url: url.replace(/\/webhook\/[^/]+\//, '/webhook/00000000-0000-4000-8000-000000000000/') }));
	add('tampered', 'signed with a query the request lacks', () => sign(harness, body, { url: `${url}?tenant=a` }));
	add('tampered', 'timestamp moved after signing', () => ({ ...sign(harness, body), 'x-timestamp': String(nowSeconds() + 1) }));
	add('tampered', 'body-hmac over another body', () => sign(harness, eventBody('evt_other', 'chg_other'), { scheme: 'body-hmac' }));
	add('tampered', 'request-style signature sent as body-hmac', () => {
		const headers = sign(harness, body);
		return { 'x-timestamp': headers['x-timestamp'], 'x-webhook-signature': headers['x-hmac-signature'] };
	});

	// Stale or malformed timestamps (validly signed over them where they are numbers).
	for (const offset of [-302, 302, -3600, -86_400 * 365]) add('stale', `timestamp ${offset} s`, () => sign(harness, body, { timestamp: nowSeconds() + offset }));
	add('stale', 'timestamp 0', () => sign(harness, body, { timestamp: 0 }));
	for (const timestamp of ['', 'abc', '-5', '1e9', `${nowSeconds()}.5`, ` ${nowSeconds()}x`]) add('stale', `timestamp ${JSON.stringify(timestamp)}`, () => sign(harness, body, { timestamp }));

	// Oversized: 5 MB (declared and chunked) and just above the default 1 MiB limit.
	const big = Buffer.from(JSON.stringify({ id: 'evt_big', event: 'charge.completed', data: { ...envelope('chg_big', 'COMPLETED'), padding: 'x'.repeat(FIVE_MB) } }));
	add('oversized', `5 MB body (${big.length} bytes), content-length`, () => sign(harness, big), big);
	list.push({ kind: 'oversized', label: '5 MB body, chunked without content-length', send: () => postChunked(url, sign(harness, big), big) });
	const justOver = Buffer.from(JSON.stringify({ id: 'evt_over', event: 'charge.completed', data: { ...envelope('chg_over', 'COMPLETED'), padding: 'y'.repeat(1024 * 1024) } }));
	add('oversized', `just over 1 MiB (${justOver.length} bytes)`, () => sign(harness, justOver), justOver);

	// Malformed JSON, validly signed: only the secret's holder could send these, and they still must not run.
	const malformed: Array<[string, string | Buffer]> = [
		['empty body', ''],
		['truncated object', '{"id":"evt_m1","event":"charge.completed","data":{'],
		['null', 'null'],
		['array', '[]'],
		['string', '"charge.completed"'],
		['number', '123'],
		['true', 'true'],
		['object without event, reference or status', '{"id":"evt_m2"}'],
		['data is an array', '{"id":"evt_m3","event":"charge.completed","data":[]}'],
		['trailing garbage', `${eventBody('evt_m4', 'chg_m4')}xyz`],
		['NaN literal', '{"id":"evt_m5","amount":NaN}'],
		['single quotes', "{'id':'evt_m6'}"],
		['deeply nested arrays', '['.repeat(200_000) + ']'.repeat(200_000)],
		['random bytes', randomBytes(4096)],
		['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
		['UTF-16 with BOM', Buffer.from(`\ufeff${eventBody('evt_m7', 'chg_m7')}`, 'utf16le')],
	];
	for (const [label, payload] of malformed) add('malformed', label, () => sign(harness, payload), payload);
	return list;
}

describe('chaos: webhook abuse against the Money Trigger', () => {
	it('refuses forged, tampered, stale, oversized and malformed deliveries without an execution or a crash', async () => {
		const harness = await openTrigger();
		const cases = abuses(harness);
		const problems: string[] = [];
		const byKind: Record<string, { sent: number; refused: number; executions: number }> = {};
		for (const abuse of cases) {
			const before = harness.executions.length;
			const answer = await abuse.send();
			capture.add(answer);
			const tally = (byKind[abuse.kind] ??= { sent: 0, refused: 0, executions: 0 });
			tally.sent++;
			const executed = harness.executions.length - before;
			tally.executions += executed;
			if (answer.status >= 400 && answer.status < 500 && executed === 0) tally.refused++;
			else problems.push(`${abuse.kind}, ${abuse.label}: HTTP ${answer.status}, ${executed} execution(s), ${answer.body.slice(0, 120)}`);
		}
		// Still serving: a valid delivery right after the abuse runs once.
		const valid = eventBody('evt_after_abuse', 'chg_after_abuse');
		const answer = await postRaw(harness.url, sign(harness, valid), valid);
		capture.add([answer, harness.deliveries, harness.executions.map((run) => run.run)]);
		expect(answer.status).toBe(200);
		const counts = harness.counts();
		for (const [kind, tally] of Object.entries(byKind)) report.add(kind, { ...tally });
		report.add('abuse totals', { ...counts, problems: problems.length });
		expect(problems).toEqual([]);
		expect(counts.crashes).toBe(0);
		expect(counts.executions).toBe(1);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	}, 120_000);

	it('runs a replayed delivery once: same bytes, re-signed retry, same status under a new id, stale status', async () => {
		const harness = await openTrigger();
		const body = eventBody('evt_replay_1', 'chg_replay_1');
		const headers = sign(harness, body);
		const sent: Array<[string, { status: number; body: string }]> = [];
		sent.push(['original', await postRaw(harness.url, headers, body)]);
		sent.push(['same bytes and headers again', await postRaw(harness.url, headers, body)]);
		sent.push(['re-signed with a fresh timestamp (sender retry)', await postRaw(harness.url, sign(harness, body, { timestamp: nowSeconds() + 1 }), body)]);
		sent.push(['re-signed body-hmac', await postRaw(harness.url, sign(harness, body, { scheme: 'body-hmac' }), body)]);
		const sameStatus = eventBody('evt_replay_2', 'chg_replay_1');
		sent.push(['same reference and status, new id', await postRaw(harness.url, sign(harness, sameStatus), sameStatus)]);
		const stale = eventBody('evt_replay_3', 'chg_replay_1', 'PENDING');
		sent.push(['PENDING after COMPLETED, new id', await postRaw(harness.url, sign(harness, stale), stale)]);
		const concurrentBody = eventBody('evt_replay_4', 'chg_replay_4');
		const concurrent = await Promise.all(Array.from({ length: 20 }, (_, index) => postRaw(harness.url, sign(harness, concurrentBody, { timestamp: nowSeconds() - index }), concurrentBody)));
		capture.add([sent, concurrent, harness.deliveries, harness.executions.map((run) => run.run)]);
		const ids = harness.executions.map((run) => run.output(harness.node.name)[0]?.json.id);
		report.add('replayed', {
			sent: sent.length + concurrent.length,
			accepted: [...sent.map(([, answer]) => answer), ...concurrent].filter((answer) => answer.status === 200).length,
			executions: harness.executions.length,
			duplicates: ids.length - new Set(ids).size,
		});
		expect(sent.map(([label, answer]) => [label, answer.status])).toEqual(sent.map(([label]) => [label, 200]));
		expect(ids).toEqual(['evt_replay_1', 'evt_replay_4']);
		expect(harness.counts().crashes).toBe(0);
	});

	it(`runs ${CONCURRENT} valid deliveries sent concurrently (each twice, both schemes) exactly once each`, async () => {
		const harness = await openTrigger();
		const statuses = ['COMPLETED', 'FAILED', 'CANCELLED'];
		const events = Array.from({ length: CONCURRENT }, (_, index) => {
			const resource = index % 2 === 0 ? 'charge' : 'payout';
			const status = resource === 'payout' && index % 7 === 0 ? 'REVERSED' : statuses[index % statuses.length];
			return { id: `evt_bulk_${index}`, body: eventBody(`evt_bulk_${index}`, `${resource.slice(0, 3)}_bulk_${index}`, status, resource, 100 + index) };
		});
		const requests = events.flatMap((event, index) => [
			() => postRaw(harness.url, sign(harness, event.body, { scheme: index % 2 === 0 ? 'request-style' : 'body-hmac' }), event.body),
			() => postRaw(harness.url, sign(harness, event.body, { scheme: index % 2 === 0 ? 'body-hmac' : 'request-style', timestamp: nowSeconds() - 5 }), event.body),
		]);
		// Interleave so that the two copies of an event are in flight at the same time.
		const answers = await pool(requests, 500);
		const ids = harness.executions.map((run) => String(run.output(harness.node.name)[0]?.json.id));
		const perId = new Map<string, number>();
		for (const id of ids) perId.set(id, (perId.get(id) ?? 0) + 1);
		capture.add([harness.deliveries]);
		for (const run of harness.executions) capture.add(run.run);
		const counts = harness.counts();
		report.add('concurrent valid', {
			sent: requests.length,
			accepted: answers.filter((answer) => answer.status === 200).length,
			executions: counts.executions,
			distinctEvents: perId.size,
			duplicates: ids.length - perId.size,
			crashes: counts.crashes,
		});
		expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
		expect(counts.crashes).toBe(0);
		expect(perId.size).toBe(CONCURRENT);
		expect([...perId.values()].every((count) => count === 1)).toBe(true);
		expect(events.every((event) => perId.has(event.id))).toBe(true);
	}, 300_000);

	it('still refuses a replay inside the 300 s window after 1,000 other deliveries (the id memory must cover the window)', async () => {
		const harness = await openTrigger();
		const first = eventBody('evt_window_first', 'chg_window_first');
		const captured = sign(harness, first);
		expect((await postRaw(harness.url, captured, first)).status).toBe(200);
		const others = Array.from({ length: 1000 }, (_, index) => eventBody(`evt_window_${index}`, `chg_window_${index}`));
		await pool(others.map((body) => () => postRaw(harness.url, sign(harness, body), body)), 50);
		const executionsBefore = harness.executions.length;
		// The captured delivery, byte for byte, still inside its 300 s timestamp window.
		const replay = await postRaw(harness.url, captured, first);
		capture.add([replay, harness.deliveries]);
		const replayExecutions = harness.executions.length - executionsBefore;
		report.add('replay after 1,000 others', { sent: 1002, executions: harness.executions.length, replayStatus: replay.status, replayExecutions });
		expect(replayExecutions).toBe(0);
	}, 300_000);

	it('leaks no secret or signature into any answer, execution or log line', () => {
		const hits = capture.scan();
		report.add('secrets', {
			scannedValues: capture.figures.scannedValues,
			scannedMB: (capture.figures.scannedChars / 1e6).toFixed(1),
			logCalls: capture.figures.logCalls,
			signatures: capture.figures.signatures,
			hits: capture.figures.hits.length,
		});
		expect(hits).toEqual([]);
	});
});
