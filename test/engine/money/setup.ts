import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../../sandbox';
import { ROUTE_SLUGS } from '../../../sandbox/domain/types';
import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, type Engine, loadEngine, runMoneyNode, type RunResult } from '../../harness/engine';
import { findSecrets, type SecretSet } from '../../harness/secrets';

/**
 * The setup the Money node's engine tests share: one sandbox per test file whose client has a PIN,
 * the pack loaded from dist/ into n8n-core, and (for the operation tests) the helpers that run the
 * node and check that no run ever shows a secret.
 */

export const PIN = '48151623';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const FAST = { maxRetries: 3, retryBaseDelayMs: 2 };
export const CONTINUE = { onError: 'continueRegularOutput' as const };

export type Parameters = IDataObject;

export interface SandboxEngine {
	/** Set once the file's beforeAll has run. */
	readonly sb: Sandbox;
	readonly engine: Engine;
}

/**
 * Registers the hooks that start the sandbox (its first client has PIN; a second client, of another merchant, for credential changes), load the engine (with `nodeTypes`
 * from n8n-nodes-base) and store the Money credential as CREDENTIAL_ID, and that close the sandbox
 * after the file.
 */
export function useSandboxEngine(options: { nodeTypes?: string[]; credential?: ICredentialDataDecryptedObject } = {}): SandboxEngine {
	let sb: Sandbox | undefined;
	let engine: Engine | undefined;

	beforeAll(async () => {
		sb = await startSandbox({ finalizeAfterMs: null, config: { clients: [{ pin: PIN }, {}] } });
		engine = await loadEngine(options.nodeTypes);
		engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(sb.info, options.credential));
	});

	afterAll(async () => {
		await sb?.close();
	});

	return {
		get sb(): Sandbox {
			if (!sb) throw new Error('the sandbox starts in beforeAll');
			return sb;
		},
		get engine(): Engine {
			if (!engine) throw new Error('the engine loads in beforeAll');
			return engine;
		},
	};
}

export interface RunOptions {
	items?: INodeExecutionData[];
	settings?: Parameters;
	executionId?: string;
	credentialId?: string;
}

export interface MoneyNodeSuite extends SandboxEngine {
	/** Runs the Money node alone with these parameters; every run is scanned for secrets. */
	run(parameters: Parameters, options?: RunOptions): Promise<RunResult>;
	/** Records the access token in use and checks that the run shows no secret (for runs made another way). */
	remember(result: RunResult): RunResult;
	json(result: RunResult, index?: number): IDataObject;
	/** Create Charge parameters: 5000 XOF from GM-1001 on platform, fast retries. */
	charge(overrides?: Parameters): Parameters;
	/** The same as a Create Payout to GM-1002. */
	payout(overrides?: Parameters): Parameters;
	/** Runs with Continue On Fail and checks the error item names the code and status and keeps its pairing. */
	expectFailure(parameters: Parameters, errorCode: string | null, httpCode: number | null): Promise<IDataObject>;
	/** Puts the sandbox client back as the tests expect it: entitled to every route, high limits, no fault, no token. */
	restoreClient(): Promise<void>;
}

/**
 * The Money node against the sandbox, with its client restored before the file and after every test.
 * The sandbox's velocity limit is raised to 1000 (restoreClient); the credential says so, or the node
 * would pace to 20 per 5 minutes. After the file: the runs were scanned, a token was seen, and the
 * scan does find a secret where there is one.
 */
export function useMoneyNode(): MoneyNodeSuite {
	const base = useSandboxEngine({ credential: { velocityLimit: 1000 } });
	const scanned: unknown[] = [];
	const accessTokens = new Set<string>();

	function secrets(): SecretSet {
		const { info } = base.sb;
		return {
			clientSecret: info.clientSecret,
			apiKey: info.apiKey,
			hmacSecret: info.hmacSecret,
			webhookSecret: info.webhookSecret,
			pin: PIN,
			accessTokens: [...accessTokens],
		};
	}

	function remember(result: RunResult): RunResult {
		const token = base.engine.credentials.stored(CREDENTIAL_ID).accessToken;
		if (typeof token === 'string' && token) accessTokens.add(token);
		scanned.push(result.run);
		expect(findSecrets(result.run, secrets())).toEqual([]);
		return result;
	}

	async function run(parameters: Parameters, options: RunOptions = {}): Promise<RunResult> {
		return remember(
			await runMoneyNode(base.engine, {
				parameters: parameters as never,
				items: options.items,
				settings: options.settings as never,
				executionId: options.executionId,
				credentialId: options.credentialId,
			}),
		);
	}

	const json = (result: RunResult, index = 0): IDataObject => result.output('Money')[index]?.json as IDataObject;

	function charge(overrides: Parameters = {}): Parameters {
		return {
			resource: 'charge',
			operation: 'create',
			amount: 5000,
			currency: 'XOF',
			payerIdentifierType: 'gm_account',
			payerIdentifier: 'GM-1001',
			channel: 'platform',
			payerAccountType: '',
			options: FAST,
			...overrides,
		};
	}

	function payout(overrides: Parameters = {}): Parameters {
		return {
			resource: 'payout',
			operation: 'create',
			amount: 5000,
			currency: 'XOF',
			beneficiaryIdentifierType: 'gm_account',
			beneficiaryIdentifier: 'GM-1002',
			channel: 'platform',
			beneficiaryAccountType: '',
			options: FAST,
			...overrides,
		};
	}

	async function expectFailure(parameters: Parameters, errorCode: string | null, httpCode: number | null) {
		const result = await run(parameters, { settings: CONTINUE });
		const item = json(result);
		expect(item).toMatchObject({ error_code: errorCode, httpCode });
		expect(String(item.error)).toContain(errorCode ?? String(httpCode));
		expect(typeof item.description).toBe('string');
		expect(result.output('Money')[0].pairedItem).toEqual({ item: 0 });
		return item;
	}

	async function restoreClient() {
		const { control, info } = base.sb;
		await control.clearFaults();
		await control.setClockOffset(0);
		await control.updateClient(info.clientId, {
			entitlements: [...ROUTE_SLUGS],
			linked: true,
			hasPrimaryWallet: true,
			profileIncomplete: false,
			merchantResolvable: true,
			walletRetrievable: true,
			limits: { minAmount: 100, maxAmount: 5_000_000, velocityLimit: 1000, dailyCap: 500_000_000, monthlyCap: 5_000_000_000 },
			balance: 100_000_000,
		});
		await control.revokeTokens();
	}

	beforeAll(async () => {
		await restoreClient();
	});

	afterEach(async () => {
		await restoreClient();
	});

	afterAll(() => {
		expect(accessTokens.size).toBeGreaterThan(0);
		expect(findSecrets([{ nested: `x${PIN}x` }], secrets())).toHaveLength(1);
		expect(findSecrets(scanned, secrets())).toEqual([]);
	});

	return {
		get sb() {
			return base.sb;
		},
		get engine() {
			return base.engine;
		},
		run,
		remember,
		json,
		charge,
		payout,
		expectFailure,
		restoreClient,
	};
}
