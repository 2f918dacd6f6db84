extension ConfigurationLoader {
    /// The boards `board: auto` can pick from these directories, each with the first device-tree
    /// model it lists: what `config check` checks a file against on a machine where auto cannot pick.
    public static func autoBoards(boardsDirectories: [String]) -> [(name: String, model: String)] {
        BoardLoader.availableBoards(in: boardsDirectories).compactMap { name in
            guard name != BoardLoader.autoName, case let .found(board) = BoardLoader.load(name: name, directories: boardsDirectories),
                  let model = board.deviceTreeModels.first else { return nil }
            return (name, model)
        }
    }
}
