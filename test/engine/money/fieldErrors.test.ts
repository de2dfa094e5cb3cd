import type { IDataObject } from 'n8n-workflow';

import { CREDENTIAL_TYPE, credentialFromSandbox, runMoneyNode } from '../../harness/engine';
import { expectEditorFinds } from '../../unit/support/properties';
import { FAST, useMoneyNode } from './setup';

/*
 * Every error that names a parameter carries, in `context.parameter`, the path of internal names by
 * which n8n's editor finds the field (the error's "In parameter"; a display name there reads
 * `Could not find parameter "…"`). One run per place that refuses a parameter, in a real n8n-core
 * execution; the message starts with the label the panel shows for that resource and operation.
 */
const env = useMoneyNode();

async function expectFieldError(parameters: IDataObject, path: string, label: string, run: { mode?: 'trigger'; credentialId?: string } = {}) {
	const result = env.remember(await runMoneyNode(env.engine, { parameters: parameters as never, ...run }));
	const error = result.error() as unknown as { message: string; context: IDataObject } | undefined;
	expect(error?.context.parameter).toBe(path);
	const message = String(error?.message);
	const field = message.slice(label.length + 2, message.indexOf(')'));
	expectEditorFinds({ parameter: path, label, field, rule: message.slice(message.indexOf(')') + 2) }, String(parameters.resource), String(parameters.operation));
}

describe('errors name the parameter so the editor finds it', () => {
	// Nothing below reaches the API; the suite's secret scan wants a token it has seen.
	beforeAll(async () => {
		await env.run({ resource: 'account', operation: 'get', options: FAST });
	});

	it('a create field (top level, Additional Fields, fixed collection)', async () => {
		await expectFieldError(env.payout({ amount: '={{ "abc" }}' }), 'amount', 'Amount');
		await expectFieldError(env.charge({ payerIdentifierType: 'phone', payerIdentifier: '+22890000001' }), 'payerAccountType', 'Payer Account Type');
		await expectFieldError(env.charge({ additionalFields: { message: 'x'.repeat(256) } }), 'additionalFields.message', 'Message');
		await expectFieldError(env.charge({ additionalFields: { metadata: { entries: [{ key: '', value: 'x' }] } } }), 'additionalFields.metadata', 'Metadata');
	});

	it('the Wallet PIN option and the Business Reference a production run requires', async () => {
		env.engine.credentials.set('no-pin', CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info, { walletPinSecret: '', velocityLimit: 1000 }));
		await expectFieldError(env.payout({ businessReference: 'fe-1' }), 'options', 'Wallet PIN', { credentialId: 'no-pin' });
		await expectFieldError(env.payout(), 'businessReference', 'Business Reference', { mode: 'trigger' });
	});

	it('Get, Get Many (Limit, Filters) and Reconcile (period, options, record fields)', async () => {
		await expectFieldError({ resource: 'payout', operation: 'get', reference: '  ', options: FAST }, 'reference', 'Reference');
		await expectFieldError({ resource: 'transaction', operation: 'get', transactionId: '= ', options: FAST }, 'transactionId', 'Transaction ID');
		await expectFieldError({ resource: 'charge', operation: 'getAll', returnAll: false, limit: 0, options: FAST }, 'limit', 'Limit');
		await expectFieldError({ resource: 'charge', operation: 'getAll', limit: 5, filters: { status: 'NOPE' }, options: FAST }, 'filters.status', 'Status');
		await expectFieldError({ resource: 'payout', operation: 'getAll', limit: 5, filters: { startDate: 'yesterday' }, options: FAST }, 'filters.startDate', 'Created After');
		const period = { createdAfter: '2026-01-02', createdBefore: '2026-01-01' };
		await expectFieldError({ resource: 'charge', operation: 'reconcile', ...period, referenceField: 'order' }, 'createdBefore', 'Created Before');
		await expectFieldError({ resource: 'charge', operation: 'reconcile', createdAfter: '={{ "" }}', createdBefore: '2026-01-01', referenceField: 'order' }, 'createdAfter', 'Created After');
		const around = { createdAfter: '2026-01-01', createdBefore: '2026-01-02' };
		await expectFieldError({ resource: 'charge', operation: 'reconcile', ...around, referenceField: 'order', options: { amountTolerance: -1 } }, 'options', 'Amount Tolerance');
		await expectFieldError({ resource: 'payout', operation: 'reconcile', ...around, referenceField: '', businessReferenceField: '' }, 'referenceField', 'Reference Field');
	});
});
