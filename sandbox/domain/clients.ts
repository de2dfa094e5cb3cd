import type { ClientPatch, ClientSettings, ClientView, WalletSettings } from './settings';

export const PATCHABLE_CLIENT_FIELDS: ReadonlyArray<keyof ClientPatch> = [
	'entitlements',
	'ipAllowlist',
	'rateLimit',
	'linked',
	'hasPrimaryWallet',
	'profileIncomplete',
	'merchantResolvable',
	'walletRetrievable',
	'webhookUrl',
	'webhookScheme',
	'limits',
	'balance',
];

export class ClientState {
	tokenGeneration = 0;
	authenticatedCalls = 0;
	readonly recentPayoutTimes: number[] = [];
	rateWindowStart = 0;
	rateWindowCount = 0;

	constructor(readonly settings: ClientSettings) {}

	get clientId(): string {
		return this.settings.clientId;
	}

	primaryWallet(): WalletSettings | undefined {
		return this.settings.hasPrimaryWallet ? this.settings.wallets[0] : undefined;
	}

	wallet(number: string): WalletSettings | undefined {
		return this.settings.wallets.find((wallet) => wallet.number === number);
	}

	/** The wallet a create without `account_number` uses: the primary one, or the merchant's wallet in that currency. */
	defaultWalletFor(currency: string): WalletSettings | undefined {
		const primary = this.primaryWallet();
		if (!primary) return undefined;
		if (primary.currency === currency) return primary;
		return this.settings.wallets.find((wallet) => wallet.currency === currency);
	}

	applyPatch(patch: ClientPatch): void {
		const { limits, balance, entitlements, ...flags } = patch;
		Object.assign(this.settings, flags);
		if (entitlements) this.settings.entitlements = [...entitlements];
		if (limits) this.settings.limits = { ...this.settings.limits, ...limits };
		if (balance !== undefined && this.settings.wallets[0]) this.settings.wallets[0].balance = balance;
	}

	view(): ClientView {
		const s = this.settings;
		return {
			clientId: s.clientId,
			entitlements: [...s.entitlements],
			ipAllowlist: s.ipAllowlist ? [...s.ipAllowlist] : null,
			limits: { ...s.limits },
			rateLimit: s.rateLimit ? { ...s.rateLimit } : null,
			linked: s.linked,
			hasPrimaryWallet: s.hasPrimaryWallet,
			profileIncomplete: s.profileIncomplete,
			merchantResolvable: s.merchantResolvable,
			walletRetrievable: s.walletRetrievable,
			webhookUrl: s.webhookUrl,
			webhookScheme: s.webhookScheme,
			wallets: s.wallets.map((wallet, index) => ({ ...wallet, primary: index === 0 && s.hasPrimaryWallet })),
		};
	}

	/** Fixed-window per-client rate limit; returns the seconds to wait when over the limit. */
	rateLimitRetryAfter(nowMs: number): number | null {
		const limit = this.settings.rateLimit;
		if (!limit) return null;
		const windowMs = limit.windowSeconds * 1000;
		if (nowMs - this.rateWindowStart >= windowMs) {
			this.rateWindowStart = nowMs;
			this.rateWindowCount = 0;
		}
		this.rateWindowCount += 1;
		if (this.rateWindowCount <= limit.requests) return null;
		return Math.max(1, Math.ceil((this.rateWindowStart + windowMs - nowMs) / 1000));
	}
}

export class ClientRegistry {
	private readonly byId = new Map<string, ClientState>();
	private readonly byApiKey = new Map<string, ClientState>();

	constructor(settings: ClientSettings[]) {
		for (const setting of settings) {
			const state = new ClientState(setting);
			this.byId.set(setting.clientId, state);
			this.byApiKey.set(setting.apiKey, state);
		}
	}

	get(clientId: string): ClientState | undefined {
		return this.byId.get(clientId);
	}

	byKey(apiKey: string): ClientState | undefined {
		return this.byApiKey.get(apiKey);
	}

	primary(): ClientState {
		const first = this.byId.values().next().value;
		if (!first) throw new Error('the sandbox needs at least one client');
		return first;
	}

	all(): ClientState[] {
		return [...this.byId.values()];
	}

	ownerOfWallet(number: string): ClientState | undefined {
		return this.all().find((client) => client.wallet(number));
	}
}
