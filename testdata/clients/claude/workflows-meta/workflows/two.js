export default {
  name: 'not-meta',
}
