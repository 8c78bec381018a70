// A module of the project's own (not node_modules): each test file must evaluate it afresh.
export const evaluation = { file: '' };
