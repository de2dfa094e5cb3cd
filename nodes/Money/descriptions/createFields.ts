import type { INodeProperties } from 'n8n-workflow';

import type { Channel, TransactionResource } from '../../api/values';
import { accountTypeOptions, channelOptions, currencyOptions, identifierTypeOptions } from '../../api/options';
import { DEFAULT_MAX_TOTAL_WAIT_MINUTES } from '../helpers/create/pacing';
import { PARTY_PARAMETERS } from '../helpers/validation';
import { byDisplayName, optionsCollection, retryOptions } from './options';
import { previewField } from './preview';

/**
 * The parameters of Charge → Create and Payout → Create, one builder per field. The party is the
 * payer of a charge or the beneficiary of a payout; the operation files list the fields in order.
 */

/** What a user maps as the Business Reference of a charge or a payout, in the words of the panel and the errors. */
export const yourId = (resource: TransactionResource): string => (resource === 'charge' ? 'order or invoice ID' : 'payout ID');

interface Party {
	/** Whose party: the payer of a charge, the beneficiary of a payout (its parameter names: PARTY_PARAMETERS). */
	resource: TransactionResource;
	/** "Payer" or "Beneficiary" */
	label: string;
	/** "charged" or "paid" */
	verb: string;
}

/**
 * Text, empty by default: n8n marks an empty required text parameter and runs nothing until it is
 * set, where a number parameter would start at a value (0 is refused, 1 would move money unasked).
 */
export const amountField: INodeProperties = {
	displayName: 'Amount',
	name: 'amount',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 5000',
	hint: 'XOF and XAF have no minor unit: 5000 moves 5000 XOF, sent as entered',
	description: 'Whole number greater than 0, in the smallest currency unit',
};

export const currencyField: INodeProperties = {
	displayName: 'Currency',
	name: 'currency',
	type: 'options',
	required: true,
	options: currencyOptions(),
	default: 'XOF',
};

const identifierTypeField = ({ resource, label }: Party): INodeProperties => ({
	displayName: `${label} Identifier Type`,
	name: PARTY_PARAMETERS[resource].identifierType,
	type: 'options',
	required: true,
	options: identifierTypeOptions(),
	// A GM account needs no account type on any channel: a new create runs with the defaults.
	default: 'gm_account',
	description: `How the ${label.toLowerCase()} is identified`,
});

const identifierField = ({ resource, label, verb }: Party): INodeProperties => ({
	displayName: `${label} Identifier`,
	name: PARTY_PARAMETERS[resource].identifier,
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. GM-1001 or +22890000001',
	description: `The ${label.toLowerCase()} to be ${verb}: a phone number in international format, or a GM account identifier`,
});

const MOBILE_MONEY = 'Mobile money; the final status arrives later';

/** The channel list; the Platform channel is described by the operation (how the party approves). */
const channelField = (platformDescription: string): INodeProperties => ({
	displayName: 'Channel',
	name: 'channel',
	type: 'options',
	required: true,
	options: channelOptions({ platform: platformDescription, 'psp-a-tg': MOBILE_MONEY, 'psp-b-tg': MOBILE_MONEY } satisfies Record<Channel, string>),
	default: 'platform',
});

const accountTypeField = ({ resource, label }: Party): INodeProperties => ({
	displayName: `${label} Account Type`,
	name: PARTY_PARAMETERS[resource].accountType,
	type: 'options',
	options: [{ name: 'Not Set', value: '' }, ...accountTypeOptions()],
	default: '',
	description: `Account type of the ${label.toLowerCase()}. Required for a phone number on the Platform channel; recommended on the mobile-money channels, where it resolves the ${label.toLowerCase()}’s display name.`,
});

const RERUNS_DOC = 'https://github.com/n8n-nodes-money/n8n-nodes-money/blob/main/docs/idempotency.md#every-way-a-create-runs-again';

/**
 * What a reference is for, as the field's hint: n8n's editor shows a hint only while the value is
 * not an expression, so it leaves the panel once a reference is mapped. A notice cannot: the editor
 * resolves a mapped value before it reads displayOptions, and one it cannot resolve yet (no input
 * data) reads as empty.
 */
const businessReferenceField = (resource: TransactionResource): INodeProperties => ({
	displayName: 'Business Reference',
	name: 'businessReference',
	type: 'string',
	default: '',
	placeholder: resource === 'charge' ? 'e.g. order-10045' : 'e.g. payout-10045',
	hint: `Map your own ${resource === 'charge' ? yourId(resource) : `${yourId(resource)}, one per row`}: with it, running the workflow again never ${resource === 'charge' ? 'charges' : 'pays'} twice; without it, only a Retry of this execution is recognised. <a href="${RERUNS_DOC}">Every way a create runs again</a>`,
	description:
		`Your own unique ID for this ${resource}, such as your ${yourId(resource)}. When set, the idempotency key is derived from it, so running the workflow again can never move this money twice; the same reference with other values is refused (IDEMPOTENCY_CONFLICT). It is also stored in the transaction metadata (n8n_business_reference) for Reconcile. When empty, the key is tied to this execution’s run of the node and the item: a Retry of the execution reuses it, a new execution does not.`,
});

/** A create in a production execution needs a Business Reference unless this is turned off (docs/decisions.md#d8). */
const requireBusinessReferenceField = (resource: TransactionResource): INodeProperties => ({
	displayName: 'Require Business Reference',
	name: 'requireBusinessReference',
	type: 'boolean',
	default: true,
	description: `Whether to refuse, before any request, a ${resource} without a Business Reference in a production execution (trigger, webhook, schedule, Retry of an execution; manual runs in the editor are not affected)`,
});

const requireBusinessReferenceOffNotice = (resource: TransactionResource): INodeProperties => ({
	displayName: `Without a Business Reference, only the node’s own retries, Retry On Fail and a Retry of this execution are recognised. Running the workflow again, a second trigger event, or re-sending the rows after a queue-mode worker crash ${resource === 'charge' ? 'charges' : 'pays'} again, and a ${resource} whose answer was lost cannot be told apart from a new one.`,
	name: 'requireBusinessReferenceOffNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { requireBusinessReference: [false] } },
});

/** Account Number, Message, Metadata and the payment reference; the wallet is credited by a charge, debited by a payout. */
const additionalFields = (walletEffect: 'credit' | 'debit'): INodeProperties => ({
	displayName: 'Additional Fields',
	name: 'additionalFields',
	type: 'collection',
	placeholder: 'Add field',
	default: {},
	options: [
		{
			displayName: 'Account Number',
			name: 'accountNumber',
			type: 'string',
			default: '',
			description: `Merchant wallet to ${walletEffect}; it must belong to the merchant. Defaults to the primary wallet.`,
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
});

/** Shown only when an AI agent uses the node as a tool: creates are off until allowed, and capped. */
const mandateShown = { show: { '@tool': [true], allowMoneyMovementInToolMode: [true] } };

const toolModeFields = (resource: TransactionResource, moveVerb: string): INodeProperties[] => [
	{
		displayName: 'Allow Money Movement in Tool Mode',
		name: 'allowMoneyMovementInToolMode',
		type: 'boolean',
		default: false,
		description: `Whether an AI agent using this node as a tool may create a ${resource}. Off by default.`,
		displayOptions: { show: { '@tool': [true] } },
	},
	{
		displayName: 'Maximum Amount in Tool Mode',
		name: 'maxAmountInToolMode',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 0,
		description: `Largest amount (smallest currency unit) an AI agent may ${moveVerb} in one call`,
		displayOptions: mandateShown,
	},
	{
		displayName: 'Maximum per 24 Hours in Tool Mode',
		name: 'maxAmountPer24HoursInToolMode',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 0,
		description: `Most the agent's ${resource}s of this API client may add up to over any 24 hours (XOF and XAF counted together, at par), read from the Money API before each call. 0 sets no such limit.`,
		displayOptions: mandateShown,
	},
	{
		displayName: 'Allowed Parties in Tool Mode',
		name: 'allowedPartiesInToolMode',
		type: 'string',
		default: '',
		placeholder: 'e.g. 22890000001, 22890000002',
		description: `${resource === 'payout' ? 'Beneficiary' : 'Payer'} identifiers the agent may ${moveVerb}, separated by commas or new lines, or an expression giving a list. Empty allows any.`,
		displayOptions: mandateShown,
	},
	{
		displayName: 'Allowed Currencies in Tool Mode',
		name: 'allowedCurrenciesInToolMode',
		type: 'multiOptions',
		options: currencyOptions(),
		default: [],
		description: 'Currencies the agent may use. None chosen allows any.',
		displayOptions: mandateShown,
	},
	{
		displayName: 'Allowed Channels in Tool Mode',
		name: 'allowedChannelsInToolMode',
		type: 'multiOptions',
		options: channelOptions(),
		default: [],
		description: 'Channels the agent may use. None chosen allows any.',
		displayOptions: mandateShown,
	},
	{
		displayName: 'Mandate Expires in Tool Mode',
		name: 'mandateExpiresInToolMode',
		type: 'dateTime',
		default: '',
		description: `From this time on the agent may ${moveVerb} nothing without a person. Empty: no expiry.`,
		displayOptions: mandateShown,
	},
	{
		displayName: 'Beyond the Mandate in Tool Mode',
		name: 'beyondMandateInToolMode',
		type: 'options',
		options: [
			{ name: 'Refuse', value: 'refuse', description: 'Refuse the call; the agent is told which limit it met' },
			{
				name: 'Pay After Human Review',
				value: 'review',
				description: "Pay a call beyond the mandate only when it reached this tool through n8n's Human review and a person approved it (n8n 2.x); otherwise refuse",
			},
		],
		default: 'refuse',
		displayOptions: mandateShown,
	},
];

/**
 * The Options that pace and check a payout run (helpers/create/pacing.ts): the API's velocity
 * limit applies to payouts, so a charge offers none of them.
 */
const payoutRunOptions: INodeProperties[] = [
	{
		displayName: 'Approved Plan',
		name: 'approvedPlan',
		type: 'string',
		default: '',
		placeholder: "e.g. {{ $('Preview payouts').first().json.plan_id }}",
		description:
			'The plan ID of the preview a person approved (Preview Only gives it above its output and on each item). Before any payout the run computes its own plan: when a row was added, removed or changed since, or the credential goes to another API client, the whole run is refused and nothing is sent. Every row needs a Business Reference. A Retry keeps the approval.',
	},
	{
		displayName: 'Check Balance First',
		name: 'checkBalanceFirst',
		type: 'boolean',
		default: false,
		description:
			'Whether to read the wallet balance before any payout and refuse the whole run, sending nothing, when its payouts in the wallet currency add up to more than is available',
	},
	{
		displayName: 'Maximum Total Wait (Minutes)',
		name: 'maxTotalWaitMinutes',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: DEFAULT_MAX_TOTAL_WAIT_MINUTES,
		description:
			'With On Velocity Limit = Wait: how long this node may wait in total for the velocity limit in one run. When the next wait would go past it, the remaining payouts fail without being sent.',
	},
	{
		displayName: 'On Velocity Limit',
		name: 'onVelocityLimit',
		type: 'options',
		options: [
			{
				name: 'Wait',
				value: 'wait',
				description:
					'Pace the payouts to the limit of the credential (and to what the API reports), and wait out a refusal caused by another workflow, resending with the same idempotency key',
			},
			{ name: 'Fail the Item', value: 'fail', description: 'Send at once; a velocity refusal fails the item' },
		],
		default: 'wait',
		description: "What to do when the next payout would exceed the API's velocity limit (20 per rolling 5 minutes unless the credential says otherwise)",
	},
];

/** The Options of a create: pacing and checks (payouts), retries, waiting for the final status, the PIN override. */
const createOptions = (resource: TransactionResource): INodeProperties =>
	optionsCollection(
		byDisplayName([
			...(resource === 'payout' ? payoutRunOptions : []),
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
				displayName: 'Wait for Final Status',
				name: 'waitForFinalStatus',
				type: 'boolean',
				default: false,
				description: `Whether to read the ${resource} again until its status is final (COMPLETED, FAILED, CANCELLED or REVERSED) or the wait timeout passes. The output says which with final_status_reached.`,
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
	);

const PARTIES: Record<TransactionResource, Party & { platform: string; walletEffect: 'credit' | 'debit'; moveVerb: string }> = {
	charge: { resource: 'charge', label: 'Payer', verb: 'charged', platform: 'The payer approves in the app; the output carries the redirect_link to hand to the payer', walletEffect: 'credit', moveVerb: 'charge' },
	payout: { resource: 'payout', label: 'Beneficiary', verb: 'paid', platform: 'In-app wallet transfer', walletEffect: 'debit', moveVerb: 'pay out' },
};

/** The parameters of Charge → Create or Payout → Create, in the panel's order. */
export function createFields(resource: TransactionResource): INodeProperties[] {
	const party = PARTIES[resource];
	return [
		amountField,
		currencyField,
		identifierTypeField(party),
		identifierField(party),
		channelField(party.platform),
		accountTypeField(party),
		businessReferenceField(resource),
		requireBusinessReferenceField(resource),
		requireBusinessReferenceOffNotice(resource),
		additionalFields(party.walletEffect),
		...toolModeFields(resource, party.moveVerb),
		previewField(resource),
		createOptions(resource),
	];
}
