import { createHmac } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { buildEventItem } from '../../nodes/events/item';
import { eventMemoryOf, forgetEventId, hasSeenEventId, lastKnownStatus, rememberEventId, EVENT_ID_REPLAY_WINDOW_SECONDS, EVENT_ID_RETENTION_SECONDS, rememberStatus } from '../../nodes/events/memory';
import { judgeTransition } from '../../nodes/events/statusOrder';
import { parseWebhookEvent } from '../../nodes/events/parse';
import { passesFilters } from '../../nodes/events/filters';
import { signedPathCandidates, singleHeader, verifyWebhookSignature, type VerificationInput } from '../../nodes/events/verification';

/*
 * Signatures here are computed with node:crypto straight from the text of docs/decisions.md#d1, not with the
 * pack's signer, so a mistake shared by signer and verifier cannot hide.
 */
const SECRET = 'whsec_unit_test_secret_value';
const PATH = '/webhook/7f1c/money';
const NOW = 1_700_000_000;

function hmac(key: string, data: string | Buffer): string {
	return createHmac('sha256', key).update(data).digest('hex');
}

function requestStyle(body: Buffer, timestamp: number, path = PATH, secret = SECRET): string {
	const canonical = `${timestamp}\nPOST\n${path}\n${hmac('', body)}`;
	return hmac(secret, canonical);
}

function bodyHmac(body: Buffer, timestamp: number, secret = SECRET): string {
	return hmac(secret, Buffer.concat([Buffer.from(`${timestamp}.`), body]));
}

const envelope = {
	reference: 'chg_123',
	status: { code: 1, label: 'COMPLETED' },
	type: 'charge',
	channel: 'psp-a-tg',
	amount: { value: 5000, currency: 'XOF' },
	created_at: '2024-05-01T10:00:00.000Z',
	updated_at: '2024-05-01T10:01:00.000Z',
};
const event = { id: 'evt_1', event: 'charge.completed', created_at: '2024-05-01T10:01:01.000Z', data: envelope };
const BODY = Buffer.from(JSON.stringify(event));

function input(overrides: Partial<VerificationInput>): VerificationInput {
	return {
		scheme: 'either',
		secret: SECRET,
		rawBody: BODY,
		headers: {},
		signedPaths: [PATH],
		nowSeconds: NOW,
		...overrides,
	};
}

describe('verifyWebhookSignature', () => {
	const requestHeaders = { 'x-timestamp': String(NOW), 'x-hmac-signature': requestStyle(BODY, NOW) };
	const bodyHeaders = { 'x-timestamp': String(NOW), 'x-webhook-signature': bodyHmac(BODY, NOW) };

	it('accepts a request-style signature over POST, the path and the body hash', () => {
		expect(verifyWebhookSignature(input({ headers: requestHeaders }))).toEqual({ ok: true, scheme: 'request-style' });
		expect(verifyWebhookSignature(input({ scheme: 'request-style', headers: requestHeaders }))).toEqual({
			ok: true,
			scheme: 'request-style',
		});
	});

	it('accepts a body-hmac signature over timestamp "." raw body', () => {
		expect(verifyWebhookSignature(input({ headers: bodyHeaders }))).toEqual({ ok: true, scheme: 'body-hmac' });
		expect(verifyWebhookSignature(input({ scheme: 'body-hmac', headers: bodyHeaders }))).toEqual({
			ok: true,
			scheme: 'body-hmac',
		});
	});

	it('refuses the other scheme when one is configured', () => {
		expect(verifyWebhookSignature(input({ scheme: 'request-style', headers: bodyHeaders }))).toEqual({
			ok: false,
			reason: 'missing-signature',
		});
		expect(verifyWebhookSignature(input({ scheme: 'body-hmac', headers: requestHeaders }))).toEqual({
			ok: false,
			reason: 'missing-signature',
		});
	});

	it('refuses a body-hmac value sent in the request-style header and vice versa', () => {
		const swapped = { 'x-timestamp': String(NOW), 'x-hmac-signature': bodyHmac(BODY, NOW) };
		expect(verifyWebhookSignature(input({ headers: swapped }))).toEqual({ ok: false, reason: 'invalid-signature' });
		const swappedBack = { 'x-timestamp': String(NOW), 'x-webhook-signature': requestStyle(BODY, NOW) };
		expect(verifyWebhookSignature(input({ headers: swappedBack }))).toEqual({ ok: false, reason: 'invalid-signature' });
	});

	it('fails closed without a secret', () => {
		expect(verifyWebhookSignature(input({ secret: '', headers: requestHeaders }))).toEqual({
			ok: false,
			reason: 'missing-secret',
		});
		const emptyKeySignature = {
			'x-timestamp': String(NOW),
			'x-hmac-signature': requestStyle(BODY, NOW, PATH, ''),
		};
		expect(verifyWebhookSignature(input({ secret: '', headers: emptyKeySignature })).ok).toBe(false);
	});

	it('refuses a missing signature or timestamp', () => {
		expect(verifyWebhookSignature(input({ headers: {} }))).toEqual({ ok: false, reason: 'missing-signature' });
		expect(verifyWebhookSignature(input({ headers: { 'x-hmac-signature': requestStyle(BODY, NOW) } }))).toEqual({
			ok: false,
			reason: 'missing-timestamp',
		});
		for (const timestamp of ['', 'abc', '17e8', '-1', '1700000000.5', ' ', '1234567890123']) {
			expect(
				verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-timestamp': timestamp } })).ok,
			).toBe(false);
		}
	});

	it('accepts timestamps up to 300 s away and refuses 301 s either way', () => {
		for (const skew of [-300, 0, 300]) {
			const headers = { 'x-timestamp': String(NOW + skew), 'x-hmac-signature': requestStyle(BODY, NOW + skew) };
			expect(verifyWebhookSignature(input({ headers })).ok).toBe(true);
		}
		for (const skew of [-301, 301, -86_400]) {
			const headers = { 'x-timestamp': String(NOW + skew), 'x-hmac-signature': requestStyle(BODY, NOW + skew) };
			expect(verifyWebhookSignature(input({ headers }))).toEqual({ ok: false, reason: 'stale-timestamp' });
		}
	});

	it('refuses a tampered body, path, timestamp or secret', () => {
		const tampered = Buffer.from(BODY);
		tampered[10] ^= 1;
		expect(verifyWebhookSignature(input({ rawBody: tampered, headers: requestHeaders })).ok).toBe(false);
		expect(verifyWebhookSignature(input({ rawBody: tampered, headers: bodyHeaders })).ok).toBe(false);
		expect(verifyWebhookSignature(input({ signedPaths: ['/webhook/7f1c/money?x=1'], headers: requestHeaders })).ok).toBe(
			false,
		);
		expect(
			verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-timestamp': String(NOW + 1) } })).ok,
		).toBe(false);
		expect(verifyWebhookSignature(input({ secret: `${SECRET}x`, headers: requestHeaders })).ok).toBe(false);
	});

	it('does not verify JSON that was re-serialised', () => {
		const reformatted = Buffer.from(JSON.stringify(event, null, 2));
		expect(verifyWebhookSignature(input({ rawBody: reformatted, headers: requestHeaders })).ok).toBe(false);
	});

	it('refuses malformed or repeated signature headers', () => {
		const good = requestStyle(BODY, NOW);
		for (const value of [good.slice(1), `${good}0`, `sha256=${good}`, 'z'.repeat(64), '']) {
			expect(verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-hmac-signature': value } })).ok).toBe(false);
		}
		expect(verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-hmac-signature': [good, good] } })).ok).toBe(
			false,
		);
	});

	it('accepts the upper-case hex of a valid signature and header names in any case', () => {
		const headers = { 'X-Timestamp': String(NOW), 'X-HMAC-Signature': requestStyle(BODY, NOW).toUpperCase() };
		expect(verifyWebhookSignature(input({ headers })).ok).toBe(true);
	});

	it('verifies against any signed-path candidate', () => {
		const headers = { 'x-timestamp': String(NOW), 'x-hmac-signature': requestStyle(BODY, NOW, '/n8n/webhook/7f1c/money') };
		expect(verifyWebhookSignature(input({ headers })).ok).toBe(false);
		expect(verifyWebhookSignature(input({ headers, signedPaths: [PATH, '/n8n/webhook/7f1c/money'] })).ok).toBe(true);
	});

	it('never returns anything derived from the secret', () => {
		const result = verifyWebhookSignature(input({ headers: { ...requestHeaders, 'x-hmac-signature': 'a'.repeat(64) } }));
		const text = JSON.stringify(result);
		expect(text).not.toContain(requestStyle(BODY, NOW));
		expect(text).not.toContain(SECRET);
	});
});

describe('signedPathCandidates', () => {
	it('uses the request path with its query, then the public URL path with that query', () => {
		expect(
			signedPathCandidates({
				requestUrl: '/webhook/abc/money?tenant=1',
				publicWebhookUrl: 'https://pay.example.com/n8n/webhook/abc/money',
			}),
		).toEqual(['/webhook/abc/money?tenant=1', '/n8n/webhook/abc/money?tenant=1']);
	});

	it('does not repeat a candidate', () => {
		expect(
			signedPathCandidates({ requestUrl: '/webhook/abc/money', publicWebhookUrl: 'http://127.0.0.1:5678/webhook/abc/money' }),
		).toEqual(['/webhook/abc/money']);
	});

	it('lets an override win alone, with or without a host', () => {
		const options = { requestUrl: '/webhook/abc/money', publicWebhookUrl: 'http://x/webhook/abc/money' };
		expect(signedPathCandidates({ ...options, override: '/hooks/money?k=v' })).toEqual(['/hooks/money?k=v']);
		expect(signedPathCandidates({ ...options, override: 'https://gw.example.com/hooks/money' })).toEqual(['/hooks/money']);
		expect(signedPathCandidates({ ...options, override: 'hooks/money' })).toEqual(['/hooks/money']);
	});
});

describe('singleHeader', () => {
	it('reads case-insensitively and rejects repeated values', () => {
		expect(singleHeader({ 'X-Timestamp': ' 12 ' }, 'x-timestamp')).toBe('12');
		expect(singleHeader({ 'x-timestamp': ['1', '2'] }, 'x-timestamp')).toBeUndefined();
		expect(singleHeader({}, 'x-timestamp')).toBeUndefined();
	});
});

describe('parseWebhookEvent', () => {
	it('parses the D1 wrapper', () => {
		const parsed = parseWebhookEvent(BODY);
		expect(parsed).toEqual({
			ok: true,
			event: {
				id: 'evt_1',
				event: 'charge.completed',
				resource: 'charge',
				status: 'COMPLETED',
				reference: 'chg_123',
				channel: 'psp-a-tg',
				occurredAt: '2024-05-01T10:01:01.000Z',
				envelope,
			},
		});
	});

	it('accepts an envelope at the root and takes the resource from its type', () => {
		for (const [type, resource] of [
			['payout', 'payout'],
			['transfer', 'payout'],
			['Transfer', 'payout'],
			['charge', 'charge'],
			['other', null],
		] as const) {
			const raw = Buffer.from(JSON.stringify({ ...envelope, type }));
			const parsed = parseWebhookEvent(raw);
			if (!parsed.ok) throw new Error(parsed.reason);
			expect(parsed.event.resource).toBe(resource);
			expect(parsed.event.status).toBe('COMPLETED');
			expect(parsed.event.id).toMatch(/^body_[0-9a-f]{32}$/);
			expect(parseWebhookEvent(raw)).toEqual(parsed);
		}
	});

	it('prefers the resource named by the event over the envelope type', () => {
		const raw = Buffer.from(JSON.stringify({ ...event, event: 'payout.completed', data: { ...envelope, type: 'charge' } }));
		const parsed = parseWebhookEvent(raw);
		expect(parsed.ok && parsed.event.resource).toBe('payout');
	});

	it('takes the status from the envelope label, else from the event name', () => {
		const noLabel = { ...event, event: 'payout.failed', data: { ...envelope, status: undefined, type: 'transfer' } };
		const parsed = parseWebhookEvent(Buffer.from(JSON.stringify(noLabel)));
		expect(parsed.ok && parsed.event.status).toBe('FAILED');
		const channelNested = { ...envelope, channel: undefined, counterpart_account: { channel: 'platform' } };
		const nested = parseWebhookEvent(Buffer.from(JSON.stringify({ ...event, data: channelNested })));
		expect(nested.ok && nested.event.channel).toBe('platform');
	});

	it('rejects what is not a Money event', () => {
		for (const raw of ['', 'not json', '[]', '"text"', '42', 'null', '{}', '{"hello":1}', '{"id":"evt","data":[1]}']) {
			expect(parseWebhookEvent(Buffer.from(raw)).ok).toBe(false);
		}
		expect(parseWebhookEvent(Buffer.from([0xff, 0xfe, 0x00])).ok).toBe(false);
	});
});

describe('judgeTransition (D2)', () => {
	it.each([
		[undefined, 'PENDING', 'new'],
		[undefined, 'COMPLETED', 'new'],
		['PENDING', 'COMPLETED', 'advance'],
		['PENDING', 'FAILED', 'advance'],
		['PENDING', 'CANCELLED', 'advance'],
		['PENDING', 'REVERSED', 'advance'],
		['COMPLETED', 'REVERSED', 'advance'],
		['PROCESSING', 'COMPLETED', 'advance'],
		['PENDING', 'PROCESSING', 'advance'],
		['COMPLETED', 'COMPLETED', 'duplicate'],
		['COMPLETED', 'PENDING', 'stale'],
		['FAILED', 'PENDING', 'stale'],
		['REVERSED', 'PENDING', 'stale'],
		['REVERSED', 'COMPLETED', 'stale'],
		['COMPLETED', 'FAILED', 'stale'],
		['FAILED', 'REVERSED', 'stale'],
		['CANCELLED', 'COMPLETED', 'stale'],
	])('%s → %s is %s', (previous, next, verdict) => {
		expect(judgeTransition(previous, next)).toBe(verdict);
	});
});

describe('event memory in static data', () => {
	it('forgets old event ids only once they are outside the replay window', () => {
		const staticData: IDataObject = {};
		const caps = { soft: 10, hard: 15 };
		const start = 1_700_000_000;
		for (let index = 0; index < 12; index++) {
			expect(rememberEventId(staticData, `evt_${index}`, start + index, caps)).toBe(true);
		}
		expect(eventMemoryOf(staticData).seenEventCount).toBe(12);
		expect(hasSeenEventId(staticData, 'evt_0')).toBe(true);

		const later = start + EVENT_ID_REPLAY_WINDOW_SECONDS + 100;
		expect(rememberEventId(staticData, 'evt_late', later, caps)).toBe(true);
		expect(hasSeenEventId(staticData, 'evt_0')).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_late')).toBe(true);
		expect(eventMemoryOf(staticData).seenEventCount).toBe(10);
		expect(Object.keys(eventMemoryOf(staticData).seenEvents)).toHaveLength(10);

		forgetEventId(staticData, 'evt_late');
		expect(hasSeenEventId(staticData, 'evt_late')).toBe(false);
	});

	it('refuses to remember (so the delivery is refused) when every id is still inside the replay window', () => {
		const staticData: IDataObject = {};
		const caps = { soft: 3, hard: 5 };
		for (let index = 0; index < 5; index++) rememberEventId(staticData, `evt_${index}`, 1_700_000_000, caps);
		expect(rememberEventId(staticData, 'evt_next', 1_700_000_010, caps)).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_next')).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_0')).toBe(true);
	});

	it('keeps ids that look like numbers in acceptance order across a JSON round trip', () => {
		let staticData: IDataObject = {};
		rememberEventId(staticData, '900', 1_700_000_000);
		rememberEventId(staticData, '100', 1_700_000_001);
		staticData = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		expect(Object.keys(eventMemoryOf(staticData).seenEvents)).toEqual(['e:900', 'e:100']);
		expect(hasSeenEventId(staticData, '100')).toBe(true);
	});

	it('drops ids older than the retention period', () => {
		const staticData: IDataObject = {};
		rememberEventId(staticData, 'evt_old', 1_700_000_000);
		rememberEventId(staticData, 'evt_new', 1_700_000_000 + EVENT_ID_RETENTION_SECONDS + 1);
		expect(hasSeenEventId(staticData, 'evt_old')).toBe(false);
		expect(hasSeenEventId(staticData, 'evt_new')).toBe(true);
	});

	it('keeps the last status per reference with a cap, least recently updated evicted first', () => {
		const staticData: IDataObject = {};
		rememberStatus(staticData, 'charge', 'a', 'PENDING', 3);
		rememberStatus(staticData, 'charge', 'b', 'PENDING', 3);
		rememberStatus(staticData, 'payout', 'a', 'FAILED', 3);
		rememberStatus(staticData, 'charge', 'a', 'COMPLETED', 3);
		rememberStatus(staticData, 'charge', 'c', 'PENDING', 3);
		expect(lastKnownStatus(staticData, 'charge', 'b')).toBeUndefined();
		expect(lastKnownStatus(staticData, 'charge', 'a')).toBe('COMPLETED');
		expect(lastKnownStatus(staticData, 'payout', 'a')).toBe('FAILED');
		expect(lastKnownStatus(staticData, 'charge', 'c')).toBe('PENDING');
		expect(Object.keys(eventMemoryOf(staticData).statuses)).toHaveLength(3);
	});

	it('survives a JSON round trip (n8n stores static data as JSON)', () => {
		const staticData: IDataObject = {};
		rememberEventId(staticData, 'evt_x');
		rememberStatus(staticData, 'charge', '__proto__', 'COMPLETED');
		const restored = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		expect(hasSeenEventId(restored, 'evt_x')).toBe(true);
		expect(lastKnownStatus(restored, 'charge', '__proto__')).toBe('COMPLETED');
		expect(lastKnownStatus(restored, 'charge', 'constructor')).toBeUndefined();
	});
});

describe('filters and output', () => {
	it('treats empty lists as "any"', () => {
		const item = { resource: 'payout' as const, status: 'FAILED', channel: 'platform' };
		expect(passesFilters({ resources: [], statuses: [], channels: [] }, item)).toBe(true);
		expect(passesFilters({ resources: ['charge'], statuses: [], channels: [] }, item)).toBe(false);
		expect(passesFilters({ resources: [], statuses: ['COMPLETED'], channels: [] }, item)).toBe(false);
		expect(passesFilters({ resources: [], statuses: [], channels: ['psp-a-tg'] }, item)).toBe(false);
		expect(passesFilters({ resources: ['payout'], statuses: ['FAILED'], channels: ['platform'] }, item)).toBe(true);
		expect(passesFilters({ resources: ['payout'], statuses: [], channels: [] }, { ...item, resource: null } as never)).toBe(
			false,
		);
	});

	it('builds the item both triggers emit', () => {
		const payout = { ...envelope, reference: 'pay_1', type: 'transfer', amount: { value: -2500, currency: 'XAF' } };
		expect(buildEventItem({ id: 'evt_9', source: 'webhook', resource: 'payout', envelope: payout, occurredAt: 'T' })).toEqual({
			event: 'payout.completed',
			id: 'evt_9',
			source: 'webhook',
			resource: 'payout',
			status: 'COMPLETED',
			reference: 'pay_1',
			channel: 'psp-a-tg',
			amount: -2500,
			currency: 'XAF',
			created_at: '2024-05-01T10:00:00.000Z',
			occurred_at: 'T',
			confirmed: false,
			data: payout,
		});
		const confirmed = buildEventItem({
			id: 'evt_9',
			source: 'webhook',
			resource: 'charge',
			envelope,
			confirmed: true,
			reportedStatus: 'FAILED',
		});
		expect(confirmed).toMatchObject({ status: 'COMPLETED', confirmed: true, reported_status: 'FAILED' });
	});
});
