extension String {
    /// The longest start of this text that takes at most `count` bytes in UTF-8 and ends on a character boundary:
    /// a file name must fit in the 255 bytes a name may have, and must not end in half a character.
    package func prefix(utf8Bytes count: Int) -> Substring {
        var end = startIndex
        var bytes = 0
        for index in indices {
            bytes += self[index].utf8.count
            guard bytes <= count else { break }
            end = self.index(after: index)
        }
        return self[startIndex..<end]
    }
}
