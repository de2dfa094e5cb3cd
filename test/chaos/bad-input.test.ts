import type { IBinaryData, IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { PARTY_PARAMETERS } from '../../nodes/Money/helpers/validation';
import type { Sandbox } from '../../sandbox';
import { type Engine, type RunResult, runMoneyNode } from '../harness/engine';
import { accepted } from '../harness/outcome';
import { SecretCapture } from './support/capture';
import { fixedSecrets, loadChaosEngine, type Resource, RESOURCES, startChaosSandbox } from './support/money';
import { ChaosReport } from './support/report';

/**
 * Nothing moves on bad input: every create field gets generated invalid values, literal and
 * mapped by expression; each must stop the item with an error naming the field, and the sandbox
 * must see no request at all (no token either). One file over 300 lines: the generated cases and
 * the runs share one sandbox and one secret capture, scanned by the last test.
 */

const CONTINUE = { onError: 'continueRegularOutput' as const };
const MB2 = 2 * 1024 * 1024;

interface BadCase {
	field: string;
	/** Texts of which at least one must appear in the error (the API field or the parameter's name). */
	names: string[];
	label: string;
	parameters?: IDataObject;
	additionalFields?: IDataObject;
	json?: IDataObject;
	binary?: Record<string, IBinaryData>;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1');

function document(bytes: Buffer, mimeType: string, fileName: string): Record<string, IBinaryData> {
	return { data: { data: bytes.toString('base64'), mimeType, fileName } };
}

function partyField(resource: Resource): string {
	return resource === 'charge' ? 'payer_identifier' : 'beneficiary_identifier';
}

function accountTypeField(resource: Resource): string {
	return resource === 'charge' ? 'payer_account_type' : 'beneficiary_account_type';
}

/** Literal parameter values, and the same values mapped from the item by an expression. */
function valueCases(parameter: string, names: string[], values: unknown[], extra: IDataObject = {}): BadCase[] {
	const cases: BadCase[] = [];
	for (const value of values) {
		const shown = JSON.stringify(value) ?? String(value);
		if (value !== undefined && (typeof value !== 'number' || Number.isFinite(value))) {
			cases.push({ field: parameter, names, label: `${parameter} = ${shown} (literal)`, parameters: { ...extra, [parameter]: value as IDataObject[string] } });
		}
		cases.push({
			field: parameter,
			names,
			label: `${parameter} = ${shown} (expression)`,
			parameters: { ...extra, [parameter]: '={{ $json.bad }}' },
			json: { bad: value as IDataObject[string] },
		});
	}
	return cases;
}

function additionalCases(parameter: string, names: string[], values: unknown[]): BadCase[] {
	return values.flatMap((value) => {
		const shown = JSON.stringify(value)?.slice(0, 40) ?? String(value);
		return [
			{ field: parameter, names, label: `${parameter} = ${shown} (expression)`, additionalFields: { [parameter]: '={{ $json.bad }}' }, json: { bad: value as IDataObject[string] } },
			...(typeof value === 'string' ? [{ field: parameter, names, label: `${parameter} = ${shown} (literal)`, additionalFields: { [parameter]: value } }] : []),
		];
	});
}

function badCases(resource: Resource): BadCase[] {
	const party = partyField(resource);
	const accountType = accountTypeField(resource);
	const label = resource === 'charge' ? 'Payer' : 'Beneficiary';
	const parameter = PARTY_PARAMETERS[resource];
	const longMessage = 'x'.repeat(256);
	return [
		...valueCases('amount', ['amount', 'Amount'], [
			0, -1, -5000, 1.5, 0.01, 99.999, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1e21, -0.5,
			'', ' ', 'abc', '12abc', '1e3', '0x10', '-5', '5.0', '5,000', '١٢٣', true, false, null, undefined, [], [5000], {}, { value: 5000 },
		]),
		...valueCases('currency', ['currency', 'Currency'], ['EUR', 'xof', 'XOF ', '', 'XO', 5, null, ['XOF'], { code: 'XOF' }, true]),
		// The account type is set so that n8n's own required-parameter check (see the control test) stays out of the way.
		...valueCases(parameter.identifierType,
			[`${party}.type`, `${label} Identifier Type`],
			['email', 'GM_ACCOUNT', 'Phone', '', 7, null, ['phone'], {}, 'bank_account'],
			{ [parameter.accountType]: 'Client' },
		),
		...valueCases(parameter.identifier, [`${party}.identifier`, `${label} Identifier`], ['', '   ', null, {}, [], true, ['GM-1001']]),
		...valueCases(parameter.identifier,
			[`${party}.identifier`, `${label} Identifier`],
			['abc', '+1234', '+1234567890123456', '+228 9000 0001', '22890000001; DROP TABLE', '１２３４５６７８９０', '+22890000001\n+22890000002', '++22890000001'],
			{ [parameter.identifierType]: 'phone', [parameter.accountType]: 'Client' },
		),
		...valueCases('channel', ['channel', 'Channel'], ['PLATFORM', 'psp-c-tg', 'psp-a-tg ', '', 3, null, ['platform'], {}]),
		...valueCases(parameter.accountType, [accountType, `${label} Account Type`], ['client', 'Admin', 'CLIENT', 5, {}, ['Client'], true]),
		// Required conditional field: phone on the platform channel needs the account type.
		...valueCases(parameter.accountType, [accountType, `${label} Account Type`], ['', null, '  '], {
			[parameter.identifierType]: 'phone',
			[parameter.identifier]: '+22890000001',
			channel: 'platform',
		}),
		...additionalCases('accountNumber', ['account_number', 'Account Number'], [{}, [], true, { number: 'WAL-XOF-100001' }]),
		...additionalCases('message', ['message', 'Message'], [longMessage, 'é'.repeat(256), '😀'.repeat(256), 'y'.repeat(10_000), {}, ['hi'], true]),
		...additionalCases('paymentReferenceNumber', ['payment_reference.ref_number', 'Payment Reference Number'], [{}, [], true, { ref: 'INV-1' }]),
		{
			field: 'metadata',
			names: ['metadata', 'Metadata'],
			label: 'metadata with an empty key',
			additionalFields: { metadata: { entries: [{ key: '', value: 'x' }] } },
		},
		{
			field: 'metadata',
			names: ['metadata', 'Metadata'],
			label: 'metadata with a blank key',
			additionalFields: { metadata: { entries: [{ key: '   ', value: 'x' }] } },
		},
		{
			field: 'metadata',
			names: ['metadata', 'Metadata'],
			label: 'metadata with a repeated key',
			additionalFields: { metadata: { entries: [{ key: 'order', value: '1' }, { key: 'order', value: '2' }] } },
		},
		...['__proto__', 'constructor', 'prototype'].map((key) => ({
			field: 'metadata',
			names: ['metadata', 'Metadata'],
			label: `metadata with the key ${key}`,
			additionalFields: { metadata: { entries: [{ key, value: 'polluted' }] } },
		})),
		...documentCases(),
	];
}

function documentCases(): BadCase[] {
	const names = ['payment_reference.ref_document', 'Payment Reference Document'];
	const withField = { paymentReferenceDocumentField: 'data' };
	const oversizePng = Buffer.concat([PNG, Buffer.alloc(MB2 + 1 - PNG.length, 7)]);
	const oversizeJpeg = Buffer.concat([JPEG, Buffer.alloc(3 * 1024 * 1024, 1)]);
	return [
		{ field: 'document', names: [...names, 'data'], label: 'document field names a binary the item does not have', additionalFields: withField },
		{ field: 'document', names, label: 'empty document', additionalFields: withField, binary: document(Buffer.alloc(0), 'application/pdf', 'empty.pdf') },
		{ field: 'document', names, label: 'GIF (wrong file type)', additionalFields: withField, binary: document(Buffer.concat([GIF, Buffer.alloc(64)]), 'image/gif', 'a.gif') },
		{ field: 'document', names, label: 'text claiming to be a PNG', additionalFields: withField, binary: document(Buffer.from('hello, this is not an image'), 'image/png', 'fake.png') },
		{ field: 'document', names, label: 'Windows executable named .pdf', additionalFields: withField, binary: document(Buffer.concat([Buffer.from('MZ'), Buffer.alloc(128)]), 'application/pdf', 'invoice.pdf') },
		{ field: 'document', names, label: 'lower-case %pdf- header', additionalFields: withField, binary: document(Buffer.from('%pdf-1.7 not really'), 'application/pdf', 'x.pdf') },
		{
			field: 'document',
			names,
			label: 'bad base64 in the binary data',
			additionalFields: withField,
			binary: { data: { data: '!!!! this is not base64 at all ####', mimeType: 'application/pdf', fileName: 'bad.pdf' } },
		},
		{ field: 'document', names, label: 'PNG of 2 MB + 1 byte', additionalFields: withField, binary: document(oversizePng, 'image/png', 'big.png') },
		{ field: 'document', names, label: 'JPEG of 3 MB', additionalFields: withField, binary: document(oversizeJpeg, 'image/jpeg', 'big.jpg') },
	];
}

function baseParameters(resource: Resource): IDataObject {
	return {
		resource,
		operation: 'create',
		amount: 5000,
		currency: 'XOF',
		[PARTY_PARAMETERS[resource].identifierType]: 'gm_account',
		[PARTY_PARAMETERS[resource].identifier]: resource === 'charge' ? 'GM-1001' : 'GM-1002',
		channel: 'psp-a-tg',
		[PARTY_PARAMETERS[resource].accountType]: '',
		businessReference: '',
		options: { maxRetries: 0, retryBaseDelayMs: 1 },
	};
}

const report = new ChaosReport('nothing moves on bad input');
let sb: Sandbox;
let engine: Engine;
const capture = new SecretCapture(() => fixedSecrets(sb));

beforeAll(async () => {
	sb = await startChaosSandbox(801);
	engine = await loadChaosEngine(sb);
	capture.start();
});

afterAll(async () => {
	capture.stop();
	report.write();
	await sb?.close();
});

async function runCase(resource: Resource, badCase: BadCase): Promise<IDataObject> {
	const base = baseParameters(resource);
	const parameters = {
		...base,
		...(badCase.parameters ?? {}),
		additionalFields: { ...(badCase.additionalFields ?? {}) },
	} as INodeParameters;
	const item: INodeExecutionData = { json: badCase.json ?? {} };
	if (badCase.binary) item.binary = badCase.binary;
	let result: RunResult;
	try {
		result = await runMoneyNode(engine, { parameters, items: [item], settings: CONTINUE });
	} catch (error) {
		// n8n itself refuses to start a workflow whose node has issues (a required parameter empty).
		capture.add(error);
		return { error: error instanceof Error ? error.message : String(error), refusedBy: 'n8n' };
	}
	capture.add(result.run);
	const output = result.output('Money');
	return (output[0]?.json ?? { error: result.error()?.message ?? 'no output at all' }) as IDataObject;
}

describe('chaos: nothing moves on bad input', () => {
	for (const resource of RESOURCES) {
		it(`${resource}: every invalid create field is refused naming the field, and the sandbox sees nothing`, async () => {
			await sb.control.resetCounters();
			const cases = badCases(resource);
			const problems: string[] = [];
			const byField: Record<string, number> = {};
			for (const badCase of cases) {
				const output = await runCase(resource, badCase);
				byField[badCase.field] = (byField[badCase.field] ?? 0) + 1;
				const text = `${String(output.error ?? '')} ${String(output.description ?? '')}`;
				if (accepted(output) || typeof output.error !== 'string') {
					problems.push(`${badCase.label}: accepted (${JSON.stringify(output).slice(0, 160)})`);
				} else if (!badCase.names.some((name) => text.toLowerCase().includes(name.toLowerCase()))) {
					problems.push(`${badCase.label}: error does not name ${badCase.names.join(' or ')}: ${text.slice(0, 200)}`);
				}
			}
			const counters = await sb.control.counters();
			const requests = Object.values(counters.requests).reduce((total, count) => total + count, 0);
			report.add(resource, {
				sent: cases.length,
				refusedNamingField: cases.length - problems.length,
				problems: problems.length,
				apiRequests: requests,
				tokenRequests: counters.tokenRequests,
				created: Object.keys(counters.createsByIdempotencyKey).length,
				...Object.fromEntries(Object.entries(byField).map(([field, count]) => [`cases.${field}`, count])),
			});
			expect(problems).toEqual([]);
			expect(counters.requests).toEqual({});
			expect(counters.tokenRequests).toBe(0);
			const ledger = await sb.control.ledger();
			expect(ledger.charges.length + ledger.payouts.length).toBe(0);
		});
	}

	it('a mapped business reference that resolves to nothing or to an object is refused, not replaced by a per-execution key', async () => {
		await sb.control.resetCounters();
		const values: unknown[] = ['', '   ', null, undefined, {}, { id: 'order-1' }, { id: 'order-2' }];
		const problems: string[] = [];
		for (const value of values) {
			const output = await runCase('payout', {
				field: 'businessReference',
				names: ['Business Reference', 'businessReference'],
				label: `businessReference = ${JSON.stringify(value) ?? 'undefined'}`,
				parameters: { businessReference: '={{ $json.orderId }}' },
				json: value === undefined ? {} : { orderId: value as IDataObject[string] },
			});
			if (accepted(output)) problems.push(`${JSON.stringify(value) ?? 'undefined'}: created ${String(output.reference)} with key ${String(output.idempotency_key)}`);
			else if (!/business reference/i.test(String(output.error))) problems.push(`${JSON.stringify(value) ?? 'undefined'}: ${String(output.error)}`);
		}
		const counters = await sb.control.counters();
		report.add('mapped business reference', {
			sent: values.length,
			refused: values.length - problems.length,
			created: Object.keys(counters.createsByIdempotencyKey).length,
		});
		expect(problems).toEqual([]);
		expect(Object.keys(counters.createsByIdempotencyKey)).toHaveLength(0);
	});

	it('a Business Reference that is only whitespace, or one value shared by rows with different payouts, refuses the run before anything is sent', async () => {
		await sb.control.resetCounters();
		const rows = (count: number, json: (index: number) => IDataObject): INodeExecutionData[] => Array.from({ length: count }, (_, index) => ({ json: json(index) }));
		const runs: Array<{ label: string; businessReference: string; items: INodeExecutionData[]; message?: string }> = [
			...[' ', '   ', '\t', '\n', '\u00a0', ' \t\n '].map((value) => ({ label: `literal ${JSON.stringify(value)}`, businessReference: value, items: rows(3, () => ({})) })),
			...[' ', '\t\t', '\u2003'].map((value) => ({ label: `mapped ${JSON.stringify(value)}`, businessReference: '={{ $json.ref }}', items: rows(3, () => ({ ref: value })) })),
			{ label: 'a constant from a missing field, amounts differ', businessReference: '=seller-share-{{ $json.missing }}', items: rows(5, (index) => ({ amount: 5000 + index })) },
			{ label: 'a constant, beneficiaries differ', businessReference: 'payout-of-the-day', items: rows(4, (index) => ({ identifier: index % 2 ? 'GM-1003' : 'GM-1002' })) },
			{ label: 'a constant, only the Message differs', businessReference: '=batch-{{ $json.batch }}', items: rows(3, (index) => ({ batch: 7, note: `row ${index}` })), message: '={{ $json.note }}' },
			{ label: 'two references each shared by two different rows', businessReference: '={{ $json.ref }}', items: rows(4, (index) => ({ ref: `ord-${index % 2}`, amount: 6000 + index })) },
		];
		const problems: string[] = [];
		for (const run of runs) {
			const parameters = {
				...baseParameters('payout'),
				amount: '={{ $json.amount || 5000 }}',
				beneficiaryIdentifier: "={{ $json.identifier || 'GM-1002' }}",
				businessReference: run.businessReference,
				additionalFields: run.message ? { message: run.message } : {},
			} as INodeParameters;
			const result = await runMoneyNode(engine, { parameters, items: run.items, settings: CONTINUE });
			capture.add(result.run);
			const outputs = result.output('Money').map((item) => item.json);
			if (outputs.length !== run.items.length) problems.push(`${run.label}: ${outputs.length} outputs for ${run.items.length} rows`);
			for (const output of outputs) {
				if (accepted(output)) problems.push(`${run.label}: a row was sent (${String(output.reference)})`);
				else if (!/Business Reference/.test(String(output.error)) || !/items? \d/.test(String(output.error))) problems.push(`${run.label}: ${String(output.error)}`);
			}
		}
		const counters = await sb.control.counters();
		report.add('whitespace and shared business references', { runs: runs.length, rows: runs.reduce((total, run) => total + run.items.length, 0), problems: problems.length, apiRequests: Object.values(counters.requests).reduce((total, count) => total + count, 0) });
		expect(problems).toEqual([]);
		expect(counters.requests).toEqual({});
	});

	it('control: valid values, literal or mapped by expression, are accepted (the refusals above are not blanket)', async () => {
		await sb.control.resetCounters();
		const valid = (resource: Resource): Array<{ label: string; parameters: IDataObject; json?: IDataObject }> => {
			const { identifierType, identifier, accountType } = PARTY_PARAMETERS[resource];
			return [
				{ label: 'literal gm_account on psp-a-tg, no account type', parameters: {} },
				{ label: 'literal phone on platform with account type', parameters: { [identifierType]: 'phone', [identifier]: '+22890000001', channel: 'platform', [accountType]: 'Client' } },
				{ label: 'amount as a numeric string', parameters: { amount: '={{ $json.amount }}' }, json: { amount: '7000' } },
				{
					label: 'identifier type and channel mapped, account type mapped',
					parameters: { [identifierType]: '={{ $json.type }}', [identifier]: '+22890000001', channel: '={{ $json.channel }}', [accountType]: '={{ $json.accountType }}' },
					json: { type: 'phone', channel: 'platform', accountType: 'Client' },
				},
				{
					label: 'identifier type mapped to gm_account on psp-a-tg, no account type (none needed)',
					parameters: { [identifierType]: '={{ $json.type }}' },
					json: { type: 'gm_account' },
				},
				{
					label: 'channel mapped to psp-b-tg for a phone, no account type (none needed)',
					parameters: { [identifierType]: 'phone', [identifier]: '+22890000001', channel: '={{ $json.channel }}' },
					json: { channel: 'psp-b-tg' },
				},
			];
		};
		const problems: string[] = [];
		let sent = 0;
		for (const resource of RESOURCES) {
			for (const entry of valid(resource)) {
				sent++;
				const output = await runCase(resource, { field: 'none', names: [], label: entry.label, parameters: entry.parameters, json: entry.json });
				if (!accepted(output)) problems.push(`${resource}, ${entry.label}: ${String(output.error)}`);
			}
		}
		report.add('control (valid input)', { sent, accepted: sent - problems.length });
		expect(problems).toEqual([]);
	});

	it('leaks no secret into any error, output or log line of these runs', () => {
		const hits = capture.scan();
		report.add('secrets', {
			scannedValues: capture.figures.scannedValues,
			scannedMB: (capture.figures.scannedChars / 1e6).toFixed(1),
			logCalls: capture.figures.logCalls,
			hits: capture.figures.hits.length,
		});
		expect(hits).toEqual([]);
	});
});
