// Plays a file on a device to its end, as the README's first lines of playback do: `PlayAFile FILE DEVICE`.
import AudioIO
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: PlayAFile FILE DEVICE\n".utf8))
    exit(2)
}
do {
    let player = try AudioPlayer(contentsOf: URL(fileURLWithPath: arguments[1]))
    player.currentDevice = arguments[2]
    let events = player.events()
    guard player.play() else {
        FileHandle.standardError.write(Data("PlayAFile: cannot play on \(arguments[2])\n".utf8))
        exit(1)
    }
    for await event in events {
        if case .finishedPlaying(let successfully) = event {
            print("AudioIO \(audioIOVersion): played \(player.duration) s, successfully: \(successfully)")
            exit(successfully ? 0 : 1)
        }
    }
} catch {
    FileHandle.standardError.write(Data("PlayAFile: \(error)\n".utf8))
    exit(1)
}
