import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { IDEMPOTENCY_HEADER, REPLAY_HEADER, ROUTES, type TransactionResource } from '../../../shared/constants';
import { moneyApiCall } from '../../../shared/transport';
import { isRetryAfterLostRun } from '../../helpers/crashRecovery';
import { deriveIdempotencyKey, runAnchorOf, storedAnchorOf } from '../../helpers/idempotency';
import { pinForRequest } from '../../helpers/pin';
import { fieldError, type CreateInput, validateCreateInput } from '../../helpers/validation';
import { waitForFinalStatus } from '../../helpers/waitForFinal';
import { optionsCollection, retryOptions } from '../common.descriptions';
import type { OperationContext } from '../types';

const PARTY: Record<TransactionResource, { label: string; verb: string }> = {
	charge: { label: 'Payer', verb: 'charged' },
	payout: { label: 'Beneficiary', verb: 'paid' },
};

const ACCOUNT_TYPE_OPTIONS = [
	{ name: 'Client', value: 'Client' },
	{ name: 'Driver', value: 'Driver' },
	{ name: 'Merchant', value: 'Merchant' },
];

export function createTransactionDescription(resource: TransactionResource): INodeProperties[] {
	const show = { resource: [resource], operation: ['create'] };
	const { label, verb } = PARTY[resource];
	const accountTypeDescription = `Account type of the ${label.toLowerCase()}. Required for a phone number on the Platform channel; recommended on the mobile-money channels, where it resolves the ${label.toLowerCase()}’s display name.`;
	return [
		{
			displayName:
				'Amounts are whole numbers in the smallest currency unit. XOF and XAF have no minor unit: enter 5000 to move 5000 XOF. The amount is sent as entered, never multiplied.',
			name: 'amountNotice',
			type: 'notice',
			default: '',
			displayOptions: { show },
		},
		{
			displayName: 'Amount',
			name: 'amount',
			type: 'number',
			required: true,
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 0,
			description: 'Whole number greater than 0, in the smallest currency unit',
			displayOptions: { show },
		},
		{
			displayName: 'Currency',
			name: 'currency',
			type: 'options',
			required: true,
			options: [
				{ name: 'XAF (Central African CFA Franc)', value: 'XAF' },
				{ name: 'XOF (West African CFA Franc)', value: 'XOF' },
			],
			default: 'XOF',
			displayOptions: { show },
		},
		{
			displayName: `${label} Identifier Type`,
			name: 'identifierType',
			type: 'options',
			required: true,
			options: [
				{ name: 'GM Account', value: 'gm_account' },
				{ name: 'Phone', value: 'phone' },
			],
			default: 'phone',
			description: `How the ${label.toLowerCase()} is identified`,
			displayOptions: { show },
		},
		{
			displayName: `${label} Identifier`,
			name: 'identifier',
			type: 'string',
			required: true,
			default: '',
			placeholder: '+22890000001',
			description: `The ${label.toLowerCase()} to be ${verb}: a phone number in international format, or a GM account identifier`,
			displayOptions: { show },
		},
		{
			displayName: 'Channel',
			name: 'channel',
			type: 'options',
			required: true,
			options: [
				{
					name: 'Platform',
					value: 'platform',
					description:
						resource === 'charge'
							? 'The payer approves in the app; the output carries the redirect_link to hand to the payer'
							: 'In-app wallet transfer',
				},
				{ name: 'PSP A (Togo)', value: 'psp-a-tg', description: 'Mobile money; the final status arrives later' },
				{ name: 'PSP B (Togo)', value: 'psp-b-tg', description: 'Mobile money; the final status arrives later' },
			],
			default: 'platform',
			displayOptions: { show },
		},
		{
			displayName: `${label} Account Type`,
			name: 'accountType',
			type: 'options',
			options: [{ name: 'Not Set', value: '' }, ...ACCOUNT_TYPE_OPTIONS],
			default: '',
			description: accountTypeDescription,
			displayOptions: { show },
		},
		{
			displayName:
				'Without a Business Reference, a Retry of a failed execution and Retry On Fail send this create again with the same idempotency key, so nothing is paid twice; a new execution of the workflow (running it again) is not recognised. Map your own order or payout ID to make every re-run safe.',
			name: 'businessReferenceNotice',
			type: 'notice',
			default: '',
			displayOptions: { show },
		},
		{
			displayName: 'Business Reference',
			name: 'businessReference',
			type: 'string',
			default: '',
			placeholder: 'e.g. order-10045',
			description:
				'Your own unique ID for this payment (an order or invoice ID). When set, the idempotency key is derived from it, so running the workflow again can never move this money twice; the same reference with other values is refused (IDEMPOTENCY_CONFLICT). When empty, the key is tied to this node run, item and values: a Retry of the execution reuses it, a new execution does not.',
			displayOptions: { show },
		},
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add field',
			default: {},
			displayOptions: { show },
			options: [
				{
					displayName: 'Account Number',
					name: 'accountNumber',
					type: 'string',
					default: '',
					description: `Merchant wallet to ${resource === 'charge' ? 'credit' : 'debit'}; it must belong to the merchant. Defaults to the primary wallet.`,
				},
				{
					displayName: 'Message',
					name: 'message',
					type: 'string',
					typeOptions: { rows: 2 },
					default: '',
					description: 'Note visible to both parties, at most 255 characters',
				},
				{
					displayName: 'Metadata',
					name: 'metadata',
					type: 'fixedCollection',
					typeOptions: { multipleValues: true },
					placeholder: 'Add metadata',
					default: {},
					description: 'Free key-value data stored with the transaction',
					options: [
						{
							displayName: 'Entry',
							name: 'entries',
							values: [
								{ displayName: 'Key', name: 'key', type: 'string', default: '' },
								{ displayName: 'Value', name: 'value', type: 'string', default: '' },
							],
						},
					],
				},
				{
					displayName: 'Payment Reference Document (Input Binary Field)',
					name: 'paymentReferenceDocumentField',
					type: 'string',
					default: '',
					placeholder: 'e.g. data',
					hint: 'The name of the input binary field holding the document',
					description:
						'Optional supporting document: JPEG, PNG or PDF (checked from its bytes), at most 2 MB. It is sent base64-encoded.',
				},
				{
					displayName: 'Payment Reference Number',
					name: 'paymentReferenceNumber',
					type: 'string',
					default: '',
					description: 'Your reference for the payment (invoice number, say), sent as payment_reference.ref_number',
				},
			],
		},
		{
			displayName: 'Allow Money Movement in Tool Mode',
			name: 'allowMoneyMovementInToolMode',
			type: 'boolean',
			default: false,
			description: `Whether an AI agent using this node as a tool may create a ${resource}. Off by default.`,
			displayOptions: { show: { ...show, '@tool': [true] } },
		},
		{
			displayName: 'Maximum Amount in Tool Mode',
			name: 'maxAmountInToolMode',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 0 },
			default: 0,
			description: `Largest amount (smallest currency unit) an AI agent may ${resource === 'charge' ? 'charge' : 'pay out'} in one call`,
			displayOptions: { show: { ...show, '@tool': [true], allowMoneyMovementInToolMode: [true] } },
		},
		optionsCollection([resource], ['create'], [
			...retryOptions.slice(0, 1),
			{
				displayName: 'Poll Interval (Ms)',
				name: 'pollIntervalMs',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 2000,
				description:
					'With Wait for Final Status: the first wait between two reads; each next wait is 1.5 times longer (at most 30 s)',
			},
			...retryOptions.slice(1),
			{
				displayName: 'Require Business Reference in Production',
				name: 'requireBusinessReference',
				type: 'boolean',
				default: false,
				description: `Whether to refuse, before any request, a ${resource} without a Business Reference when the workflow runs in production (trigger, schedule, webhook, retry); manual runs in the editor are not affected`,
			},
			{
				displayName: 'Wait for Final Status',
				name: 'waitForFinalStatus',
				type: 'boolean',
				default: false,
				description: `Whether to read the ${resource} again until its status is final (anything but PENDING) or the wait timeout passes. The output says which with final_status_reached.`,
			},
			{
				displayName: 'Wait Timeout (Seconds)',
				name: 'waitTimeoutSeconds',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 60,
				description: 'With Wait for Final Status: how long to wait at most',
			},
			{
				displayName: 'Wallet PIN',
				name: 'walletPin',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description:
					'Overrides the Wallet PIN of the credential for this node. Prefer the credential: a PIN here is stored in the workflow.',
			},
		]),
	];
}

function toolModeGuard(
	this: IExecuteFunctions,
	resource: TransactionResource,
	amount: number,
	itemIndex: number,
): void {
	const allowed = this.getNodeParameter('allowMoneyMovementInToolMode', itemIndex, false) as boolean;
	if (allowed !== true) {
		throw new NodeOperationError(
			this.getNode(),
			`Creating a ${resource} is turned off while the Money node runs as an AI tool`,
			{
				itemIndex,
				description:
					'Turn on "Allow Money Movement in Tool Mode" and set "Maximum Amount in Tool Mode" on this node to let an agent move money.',
			},
		);
	}
	const maximum = Number(this.getNodeParameter('maxAmountInToolMode', itemIndex, 0));
	if (!(amount <= maximum)) {
		throw new NodeOperationError(
			this.getNode(),
			`Amount ${amount} is above the Maximum Amount in Tool Mode (${maximum}); the ${resource} was not created`,
			{ itemIndex, description: 'Raise "Maximum Amount in Tool Mode" on this node if the agent should move more.' },
		);
	}
}

/**
 * The business reference is the payment's identity across runs (D4). A mapped value that resolves
 * to nothing or to a non-scalar must stop the item: falling back to a per-execution key would let a
 * re-run pay again, and "[object Object]" would give unrelated items one key.
 */
function readBusinessReference(this: IExecuteFunctions, itemIndex: number): string {
	const value = this.getNodeParameter('businessReference', itemIndex, '') as unknown;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	const configured = this.getNode().parameters.businessReference;
	const isMapped = typeof configured === 'string' && configured.startsWith('=');
	if (!isMapped) return '';
	throw fieldError(
		this.getNode(),
		{
			parameter: 'Business Reference',
			field: 'idempotency-key',
			rule: `must be a non-empty text or number when set; the expression gave ${describeReference(value)}`,
		},
		itemIndex,
	);
}

function describeReference(value: unknown): string {
	if (value === undefined || value === null) return 'nothing';
	if (typeof value === 'string') return 'an empty text';
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

async function readDocument(this: IExecuteFunctions, itemIndex: number, field: string): Promise<Buffer> {
	this.helpers.assertBinaryData(itemIndex, field);
	return await this.helpers.getBinaryDataBuffer(itemIndex, field);
}

/** Charge and payout creates: validate, derive the idempotency key, send once, optionally wait. */
export async function executeCreateTransaction(
	this: IExecuteFunctions,
	resource: TransactionResource,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const metadata = (additional.metadata as IDataObject | undefined)?.entries as CreateInput['metadata'];
	const documentField = typeof additional.paymentReferenceDocumentField === 'string'
		? additional.paymentReferenceDocumentField.trim()
		: '';

	const input: CreateInput = {
		amount: this.getNodeParameter('amount', itemIndex),
		currency: this.getNodeParameter('currency', itemIndex),
		identifierType: this.getNodeParameter('identifierType', itemIndex),
		identifier: this.getNodeParameter('identifier', itemIndex),
		channel: this.getNodeParameter('channel', itemIndex),
		accountType: this.getNodeParameter('accountType', itemIndex, ''),
		accountNumber: additional.accountNumber,
		message: additional.message,
		metadata,
		paymentReferenceNumber: additional.paymentReferenceNumber,
		document: documentField ? await readDocument.call(this, itemIndex, documentField) : undefined,
	};
	const validation = validateCreateInput(resource, input);
	if (!validation.ok) throw fieldError(node, validation.problem, itemIndex);
	const body = validation.body;

	if (context.isToolMode) toolModeGuard.call(this, resource, body.amount as number, itemIndex);

	const credentials = await context.credentials();
	const overridePin = typeof options.walletPin === 'string' ? options.walletPin : '';
	const pin = overridePin !== '' ? overridePin : String(credentials.walletPinSecret ?? '');
	if (pin === '') {
		throw fieldError(
			node,
			{ parameter: 'Wallet PIN', field: 'pin', rule: 'is missing: set Wallet PIN in the Money API credential (or the Wallet PIN option of this node)' },
			itemIndex,
		);
	}

	const businessReference = readBusinessReference.call(this, itemIndex);
	const lostEarlierRun = isRetryAfterLostRun(this, storedAnchorOf(this) !== undefined);
	if (businessReference === '' && lostEarlierRun) {
		throw new NodeOperationError(node, `This Retry repeats a run that n8n lost in a crash; the ${resource} was not sent`, {
			itemIndex,
			description:
				'n8n was stopped in the middle of this node\'s earlier run and replays the whole execution, so the node cannot tell which rows were already sent. Without a Business Reference, sending again could pay twice. Check the payments of the crashed execution, then run the missing rows in a new execution, or map a Business Reference and retry.',
		});
	}
	if (businessReference === '' && options.requireBusinessReference === true && this.getMode() !== 'manual') {
		throw fieldError(
			node,
			{
				parameter: 'Business Reference',
				field: 'idempotency-key',
				rule: 'is required in production by this node\'s option "Require Business Reference in Production": map your own order or payout ID',
			},
			itemIndex,
		);
	}
	const idempotencyKey = deriveIdempotencyKey({
		resource,
		businessReference,
		runAnchor: runAnchorOf(this),
		nodeId: node.id,
		runIndex: this.getWorkflowDataProxy(itemIndex).$thisRunIndex,
		itemIndex,
		payload: body,
	});

	let sentPin: string;
	try {
		sentPin = pinForRequest(pin, credentials.rsaPublicKey as string | undefined, idempotencyKey);
	} catch {
		throw new NodeOperationError(node, 'The RSA Public Key of the Money API credential cannot encrypt the PIN', {
			itemIndex,
			description: 'Paste the PEM public key issued for this client (-----BEGIN PUBLIC KEY----- …), or leave the field empty to send the PIN unencrypted.',
		});
	}

	const settings = context.callSettings(itemIndex);
	const answer = await moneyApiCall.call(this, 'POST', ROUTES[resource], {
		body: { ...body, pin: sentPin },
		headers: { [IDEMPOTENCY_HEADER]: idempotencyKey },
		itemIndex,
		retry: settings.retry,
		timeoutMs: settings.timeoutMs,
		redact: [pin, sentPin],
	});

	const acknowledgement = answer.body;
	const output: IDataObject = {
		...acknowledgement,
		resource,
		idempotency_key: idempotencyKey,
		outcome: isReplayAnswer(answer.headers) ? 'replayed' : 'created',
	};
	if (options.waitForFinalStatus === true && typeof acknowledgement.reference === 'string') {
		try {
			const outcome = await waitForFinalStatus.call(this, resource, acknowledgement.reference, {
				timeoutMs: Number(options.waitTimeoutSeconds ?? 60) * 1000,
				firstIntervalMs: Number(options.pollIntervalMs ?? 2000),
				retry: settings.retry,
				timeoutPerRequestMs: settings.timeoutMs,
				itemIndex,
			});
			Object.assign(output, outcome);
		} catch (error) {
			Object.assign(output, {
				final_status_reached: false,
				status: null,
				wait_error: error instanceof Error ? error.message : String(error),
			});
		}
	}
	return [{ json: output, pairedItem: { item: itemIndex } }];
}

/**
 * The API answers a create whose key it has seen before from its idempotency record: nothing moved
 * this time. The marker header is the sandbox's and the common convention; an API that sends none
 * makes every answer read as `created`.
 */
function isReplayAnswer(headers: Record<string, unknown>): boolean {
	const value = headers[REPLAY_HEADER];
	return String(Array.isArray(value) ? value[0] : value).toLowerCase() === 'true';
}
