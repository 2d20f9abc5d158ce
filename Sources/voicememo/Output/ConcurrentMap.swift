/// Work on every core, for formatting thousands of memos.
extension Collection where Self: Sendable, Index: Sendable {
    /// `transform` of each element, in order, each on a task of its own.
    func concurrentMap<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T) async -> [T] where Element: Sendable {
        await withTaskGroup(of: (Index, T).self) { group in
            for index in indices {
                let element = self[index]
                group.addTask { (index, transform(element)) }
            }
            var results: [(Index, T)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
