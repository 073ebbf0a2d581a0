export const meta = {
  name: 'wf-named',
  description: 'does',
}
