import { handOverBody, parseHandOver, signHandOver, verifyHandOver } from '../../../nodes/events/backstop';

const SECRET = 'whsec_test';
const NOW_MS = 1_700_000_000_000;
const NOW_S = NOW_MS / 1000;
const URL = 'https://n8n.example/webhook/abc/money';
const PATH = '/webhook/abc/money';
const body = handOverBody({ node: 'n1', checkpoint: { at: 1, state: {} } });

describe('a hand-over from a backstop poll to the Money Trigger', () => {
	it("is signed as a request-style delivery to the trigger's Production URL: timestamp, POST, path, body hash (vector: Python's hmac)", () => {
		expect(body).toBe('{"backstop":{"node":"n1","checkpoint":{"at":1,"state":{}}}}');
		expect(signHandOver(SECRET, URL, body, NOW_MS)).toBe('t=1700000000,v1=fe9bcc1de17d8d55ffa7669bf513a1000fde138b3da9550e1566ad1c73b88d6b');
	});

	it('is verified over the bytes received at that path, with a fresh timestamp, and refused otherwise', () => {
		const header = signHandOver(SECRET, URL, body, NOW_MS);
		expect(verifyHandOver(SECRET, header, Buffer.from(body), ['/other', PATH], NOW_S)).toBe(true);
		expect(verifyHandOver('another secret', header, Buffer.from(body), [PATH], NOW_S)).toBe(false);
		expect(verifyHandOver(SECRET, header, Buffer.from(`${body} `), [PATH], NOW_S)).toBe(false);
		expect(verifyHandOver(SECRET, header, Buffer.from(body), [PATH], NOW_S + 3600)).toBe(false);
		// Replayed to the Test URL or to another workflow's trigger with the same secret.
		expect(verifyHandOver(SECRET, header, Buffer.from(body), ['/webhook-test/abc/money', '/webhook/other/money'], NOW_S)).toBe(false);
		expect(verifyHandOver('', signHandOver('', URL, body, NOW_MS), Buffer.from(body), [PATH], NOW_S)).toBe(false);
		expect(verifyHandOver(SECRET, 'v1=00', Buffer.from(body), [PATH], NOW_S)).toBe(false);
	});

	it('carries an event or a checkpoint, and nothing else is one', () => {
		expect(parseHandOver(Buffer.from(body))).toEqual({ node: 'n1', checkpoint: { at: 1, state: {} } });
		const event = { id: 'poll_CH-1_completed', event: 'charge.completed', created_at: null, data: { reference: 'CH-1' } };
		expect(parseHandOver(Buffer.from(handOverBody({ node: 'n1', event })))).toEqual({ node: 'n1', event });
		for (const other of ['{}', 'not json', '{"backstop":{"node":"n1"}}', '{"backstop":{"event":{}}}', JSON.stringify({ id: 'evt_1', data: { reference: 'CH-1' } })]) {
			expect(parseHandOver(Buffer.from(other))).toBeNull();
		}
	});
});
