const transform = {
	'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
};

const project = (name, extra = {}) => ({
	displayName: name,
	testEnvironment: 'node',
	transform,
	moduleFileExtensions: ['ts', 'js', 'json'],
	testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
	setupFiles: ['<rootDir>/test/setup-env.js'],
	...extra,
});

module.exports = {
	testTimeout: 60000,
	projects: [
		project('unit'),
		project('sandbox'),
		project('engine'),
		project('chaos'),
	],
	reporters: ['default', '<rootDir>/test/totals-reporter.js'],
};
